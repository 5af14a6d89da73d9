/**
 * `npm run test:load`: the suites that run load, time things or start several `serve` processes for tens
 * of seconds (jest.config.js LOAD_SUITES), on SQLite; and those of LOAD_POSTGRES_SUITES again on
 * PostgreSQL, on one server for the run (test/postgres/global-setup.mjs, as `npm run test:postgres`
 * starts it). See jest.config.js for the tiers.
 */
import { LOAD_POSTGRES_SUITES, LOAD_SUITES, only, resultsIn, shared } from './jest.config.js';

export default {
  projects: [
    {
      ...shared,
      displayName: 'load',
      roots: ['<rootDir>/test'],
      testMatch: only(LOAD_SUITES),
    },
    {
      ...shared,
      displayName: 'load-postgres',
      roots: ['<rootDir>/test'],
      testMatch: only(LOAD_POSTGRES_SUITES),
      setupFiles: ['<rootDir>/test/postgres/on-postgres.cjs'],
    },
  ],
  testTimeout: 30000,
  // One suite at a time: they measure latency and memory, or race processes, and would disturb each other.
  maxWorkers: 1,
  globalSetup: '<rootDir>/test/postgres/global-setup.mjs',
  globalTeardown: '<rootDir>/test/postgres/global-teardown.mjs',
  reporters: resultsIn('.jest-load-results.json'),
};
