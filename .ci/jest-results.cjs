// Jest testResultsProcessor: keeps jest's aggregated JSON result in .jest-results.json so .ci/run can
// print "N passed, N failed" after running exactly the README's `npm test`.
const fs = require('node:fs');
const path = require('node:path');

module.exports = (results) => {
  fs.writeFileSync(path.join(__dirname, '..', '.jest-results.json'), JSON.stringify(results));
  return results;
};
