// Jest reporter that keeps a tier's aggregated JSON result in a file at the repository root (the
// `file` option, set by each tier's config: jest.config.js resultsIn), so .ci/run can print
// "N passed, N failed" over every tier after running exactly the README's commands.
const fs = require('node:fs');
const path = require('node:path');

module.exports = class JestResultsFile {
  constructor(globalConfig, options) {
    if (!options || typeof options.file !== 'string') throw new Error('.ci/jest-results.cjs needs a { file } option');
    this.file = path.join(__dirname, '..', options.file);
  }

  onRunComplete(testContexts, results) {
    fs.writeFileSync(this.file, JSON.stringify(results));
  }
};
