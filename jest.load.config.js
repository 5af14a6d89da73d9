/**
 * `npm run test:load`: the suites that run load, time things or start several `serve` processes for tens
 * of seconds (jest.config.js LOAD_SUITES), on SQLite. See jest.config.js for the tiers.
 */
import { LOAD_SUITES, only, resultsIn, shared } from './jest.config.js';

export default {
  projects: [
    {
      ...shared,
      displayName: 'load',
      roots: ['<rootDir>/test'],
      testMatch: only(LOAD_SUITES),
    },
  ],
  testTimeout: 30000,
  // One suite at a time: they measure latency and memory, or race processes, and would disturb each other.
  maxWorkers: 1,
  globalSetup: '<rootDir>/test/global-setup.mjs',
  globalTeardown: '<rootDir>/test/global-teardown.mjs',
  reporters: resultsIn('.jest-load-results.json'),
};
