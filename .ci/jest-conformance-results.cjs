// Jest testResultsProcessor of `npm run test:conformance`: keeps its aggregated JSON result in
// .jest-conformance-results.json, which .ci/run adds to the counts of `npm test`.
const fs = require('node:fs');
const path = require('node:path');

module.exports = (results) => {
  fs.writeFileSync(path.join(__dirname, '..', '.jest-conformance-results.json'), JSON.stringify(results));
  return results;
};
