/**
 * Jest runs the TypeScript sources as native ES modules through @swc/jest (no type check: `npm run build`
 * does that, and the tiers build first, which the suites that spawn dist/src/cli/main.js need). The
 * suites are split in tiers, each test file in exactly one (the PostgreSQL tier also runs some of the
 * first tier's suites a second time, on PostgreSQL):
 *
 * - `npm test` (this file, project "sqlite"): every suite under test/ on SQLite, with no server to start
 *   (unit, SQL golden, HTTP, rules, events, CLI, browser where Chromium is installed), except the two
 *   lists below and test/conformance. It needs nothing outside the repository.
 * - `npm run test:postgres` (jest.postgres.config.js): the suites that need a PostgreSQL server
 *   (POSTGRES_SUITES, project "postgres-only"), and the HTTP, rule, event, multi-instance and browser
 *   suites again on PostgreSQL (project "postgres": test services open a fresh database on the server
 *   its global setup starts, test/helpers/test-service.ts).
 * - `npm run test:load` (jest.load.config.js): LOAD_SUITES on SQLite, one at a time: load, latency
 *   under it, and `serve` processes killed, restarted or run side by side, for tens of seconds each;
 *   and `npm test` on a copy of the project with the README's entity and rule examples applied; then
 *   LOAD_POSTGRES_SUITES again on PostgreSQL (project "load-postgres"), on the embedded server its
 *   global setup starts as the PostgreSQL tier's does. The first tier starts no server.
 * - `npm run test:conformance` (jest.conformance.config.js): test/conformance, which reads the OASIS
 *   corpus in ../shared/conformance.
 *
 * Each tier keeps jest's aggregated result in a file of its own (.ci/jest-results.cjs), which .ci/run adds up.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.dirname(new URL(import.meta.url).pathname);

/** What every tier shares: the transform and the module mapping. */
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

/** A listed suite that is not there would silently run nowhere: say so instead. */
function existing(files) {
  for (const f of files) if (!fs.existsSync(path.join(ROOT, f))) throw new Error(`jest.config.js lists ${f}, which does not exist`);
  return files;
}

/** The suites that need the PostgreSQL server of test/postgres/global-setup.mjs (ECN_TEST_POSTGRES), whatever the engine of the run. */
export const POSTGRES_SUITES = existing([
  'test/events/change-crash.test.ts',
  'test/sql/golden-postgres.test.ts',
  'test/unit/cli/serve-db-connections.test.ts',
  'test/unit/cli/serve-startup-postgres.test.ts',
  'test/unit/store/insert-entity-postgres.test.ts',
  'test/unit/data/import-rows-postgres.test.ts',
  'test/unit/db/postgres/postgres-database.test.ts',
  'test/unit/db/postgres/postgres-dialect.test.ts',
  'test/unit/db/postgres/postgres-engine.test.ts',
  'test/unit/db/postgres/postgres-entity-json.test.ts',
  'test/unit/db/postgres/postgres-migrate-indexes.test.ts',
  'test/unit/db/postgres/postgres-outage.test.ts',
  'test/unit/db/postgres/postgres-reads.test.ts',
  'test/unit/db/postgres/postgres-read-threads.test.ts',
  'test/unit/db/postgres/postgres-replicas.test.ts',
  'test/unit/db/postgres/postgres-set-counts.test.ts',
  'test/unit/db/postgres/postgres-stored-etags.test.ts',
  'test/unit/query/plan-returning-postgres.test.ts',
]);

/**
 * The suites of `npm run test:load` (10 to 40 s each on 2 cores): load and latency under it (hostile-load,
 * robustness, events/load), read threads held to deadlines of a few hundred ms (sqlite-read-pool), and
 * `serve` processes killed, restarted or run side by side on one database (crash-recovery,
 * test/multi-instance); and, about 4 minutes, `npm test` run on a copy of the project with the README's
 * entity and rule examples applied (test/project/readme-examples). Run one at a time, nothing else
 * competes with their timings.
 */
export const LOAD_SUITES = existing([
  'test/http/hostile-load.test.ts',
  'test/http/robustness.test.ts',
  'test/unit/db/sqlite/sqlite-read-pool.test.ts',
  'test/events/load.test.ts',
  'test/events/crash-recovery.test.ts',
  'test/multi-instance/access-changes.test.ts',
  'test/multi-instance/several-serve-processes.test.ts',
  'test/multi-instance/start-while-writing.test.ts',
  'test/unit/cli/readme-postgres.test.ts',
  'test/project/readme-examples.test.ts',
]);

/**
 * Load-tier suites that also run on PostgreSQL (project "load-postgres" of jest.load.config.js, on the
 * run's server): the worst requests beside normal traffic must not hold it up on either engine.
 */
export const LOAD_POSTGRES_SUITES = existing(['test/http/hostile-load.test.ts']);

/** testMatch globs of exactly these files. */
export const only = (files) => files.map((f) => `<rootDir>/${f}`);
/** testPathIgnorePatterns (regular expressions) of exactly these files. */
const except = (files) => files.map((f) => `<rootDir>/${f.replace(/\./g, '\\.')}$`);

/** Keeps the tier's aggregated result in `file` at the root (.ci/run adds them up). */
export const resultsIn = (file) => ['default', ['<rootDir>/.ci/jest-results.cjs', { file }]];

export default {
  projects: [
    {
      ...shared,
      displayName: 'sqlite',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/conformance/', ...except(POSTGRES_SUITES), ...except(LOAD_SUITES)],
    },
  ],
  testTimeout: 30000,
  // One worker per core (jest's default leaves one core to itself): the suites wait on child processes,
  // threads and sockets as much as they compute, and on 2 cores 2 workers take about half the time of 1.
  maxWorkers: '100%',
  // No PostgreSQL server here: only the run's temporary directory (test/run-temp-dir.mjs).
  globalSetup: '<rootDir>/test/global-setup.mjs',
  globalTeardown: '<rootDir>/test/global-teardown.mjs',
  reporters: resultsIn('.jest-results.json'),
};
