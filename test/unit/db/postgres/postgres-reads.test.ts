/**
 * src/db/postgres/postgres-reads.ts runTogether on a real server: the reads of a batch share one
 * REPEATABLE READ transaction with no savepoints while none fails; when one fails, the others run
 * again with a savepoint each in a new transaction, and the failed one keeps its error without
 * running again. Inside a write transaction, savepoints from the start.
 */
import { createTestDatabase, type TestDatabase } from '../../../helpers/postgres.js';
import { PostgresSession } from '../../../../src/db/postgres/postgres-database.js';
import { PostgresReads } from '../../../../src/db/postgres/postgres-reads.js';
import type { ReadRequest } from '../../../../src/db/read-executor.js';
import type { ReadOutcome } from '../../../../src/db/read-pool.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase('pgreads');
  await t.db.exec('CREATE TABLE "x" ("id" integer PRIMARY KEY); INSERT INTO "x" VALUES (1), (2), (3); CREATE TABLE "flaky" ("n" integer); INSERT INTO "flaky" VALUES (1)');
});
afterAll(() => t.drop());

const COST = { correlated: false, scans: [], rows: 1, expansions: [], costClass: 'test' };

/** A read of one statement that gives one row. */
function read(sql: string, params: unknown[] = []): ReadRequest {
  const steps = [{ kind: 'row', query: { sql, params: params as never[] } }] as const;
  return { steps, cancellable: () => steps, cost: COST };
}

/**
 * What the sessions run while `body` runs: `sql` through `exec` (transaction control and savepoints),
 * `reads` the statements of the reads. `beforeExec` runs before each `exec`.
 */
async function execs<T>(body: () => Promise<T>, beforeExec: (sql: string) => Promise<void> = async () => undefined): Promise<{ value: T; sql: string[]; reads: string[] }> {
  const sql: string[] = [];
  const reads: string[] = [];
  const { exec, get } = PostgresSession.prototype;
  PostgresSession.prototype.exec = async function (this: PostgresSession, text: string) {
    sql.push(text);
    await beforeExec(text);
    return exec.call(this, text);
  };
  PostgresSession.prototype.get = function (this: PostgresSession, q) {
    reads.push(q.sql);
    return get.call(this, q);
  };
  try {
    return { value: await body(), sql, reads };
  } finally {
    Object.assign(PostgresSession.prototype, { exec, get });
  }
}

const rowOf = (o: ReadOutcome | undefined): unknown => (o?.ok === true && o.results[0]?.kind === 'row' ? o.results[0].row : undefined);

test('reads that all succeed run in one transaction without savepoints', async () => {
  const reads = new PostgresReads(t.db, () => undefined);
  const { value, sql } = await execs(() => reads.runTogether([read('SELECT count(*) AS "n" FROM "x"'), read('SELECT "id" FROM "x" WHERE "id" = $1', [2])]));
  expect(value.map(rowOf)).toEqual([{ n: 3 }, { id: 2 }]);
  expect(sql).toEqual(['BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', 'COMMIT']);
});

test('a failed read keeps its error and runs once; the others run again with savepoints and succeed', async () => {
  const reads = new PostgresReads(t.db, () => undefined);
  const failing = read('SELECT 1 / 0 AS "n"');
  const { value, sql, reads: ran } = await execs(() => reads.runTogether([read('SELECT count(*) AS "n" FROM "x"'), failing, read('SELECT "id" FROM "x" WHERE "id" = $1', [3])]));
  expect(value.map((o) => o.ok)).toEqual([true, false, true]);
  expect(value.map(rowOf)).toEqual([{ n: 3 }, undefined, { id: 3 }]);
  const failed = value[1];
  expect(failed?.ok === false && (failed.error as { code?: string }).code).toBe('22012');
  expect(ran).toEqual(['SELECT count(*) AS "n" FROM "x"', 'SELECT 1 / 0 AS "n"', 'SELECT count(*) AS "n" FROM "x"', 'SELECT "id" FROM "x" WHERE "id" = $1']);
  expect(sql).toEqual([
    'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
    'ROLLBACK',
    'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
    'SAVEPOINT "read"',
    'RELEASE SAVEPOINT "read"',
    'SAVEPOINT "read"',
    'RELEASE SAVEPOINT "read"',
    'COMMIT',
  ]);
});

test('a read that succeeded in the first run and fails in the second gets its error there; the rest still succeed', async () => {
  const reads = new PostgresReads(t.db, () => undefined);
  // 1 / 1 in the first run; the rollback of that run lets another connection delete the divisor's row first.
  const flaky = read('SELECT 1 / (SELECT count(*) FROM "flaky") AS "n"');
  const emptyOnRollback = async (sql: string): Promise<void> => {
    if (sql === 'ROLLBACK') await t.db.run({ sql: 'DELETE FROM "flaky"', params: [] });
  };
  const { value } = await execs(() => reads.runTogether([flaky, read('SELECT 1 / 0 AS "n"'), read('SELECT 1 AS "one"')]), emptyOnRollback);
  expect(value.map((o) => o.ok)).toEqual([false, false, true]);
  expect(value.map(rowOf)).toEqual([undefined, undefined, { one: 1 }]);
  expect(value.map((o) => (o.ok ? undefined : (o.error as { code?: string }).code))).toEqual(['22012', '22012', undefined]);
});

test('inside a write transaction the reads take savepoints from the start', async () => {
  const { sql, value } = await execs(() =>
    t.db.transaction(async (tx) => {
      const reads = new PostgresReads(t.db, () => tx);
      return reads.runTogether([read('SELECT 1 AS "one"'), read('SELECT 1 / 0 AS "n"'), read('SELECT 2 AS "two"')]);
    }),
  );
  expect(value.map(rowOf)).toEqual([{ one: 1 }, undefined, { two: 2 }]);
  expect(sql).toEqual([
    'BEGIN',
    'SAVEPOINT "read"',
    'RELEASE SAVEPOINT "read"',
    'SAVEPOINT "read"',
    'ROLLBACK TO SAVEPOINT "read"',
    'SAVEPOINT "read"',
    'RELEASE SAVEPOINT "read"',
    'COMMIT',
  ]);
});
