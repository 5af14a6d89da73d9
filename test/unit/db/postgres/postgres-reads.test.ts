/**
 * src/db/postgres/postgres-reads.ts runTogether on a real server: the reads of a batch share one
 * REPEATABLE READ transaction with no savepoints while none fails; a failed one keeps its error, the
 * ones before it their results, and the ones after it run in a new transaction; nothing runs twice,
 * and the connection goes back to the pool. Inside a write transaction, savepoints.
 */
import { createTestDatabase, type TestDatabase } from '../../../helpers/postgres.js';
import { PostgresSession } from '../../../../src/db/postgres/postgres-database.js';
import { PostgresReads } from '../../../../src/db/postgres/postgres-reads.js';
import { HeavyReadGate } from '../../../../src/db/heavy-read-gate.js';
import type { ReadRequest } from '../../../../src/db/engine.js';
import type { ReadOutcome } from '../../../../src/db/read-steps.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase('pgreads');
  await t.db.exec('CREATE TABLE "x" ("id" integer PRIMARY KEY); INSERT INTO "x" VALUES (1), (2), (3); CREATE TABLE "flaky" ("n" integer); INSERT INTO "flaky" VALUES (1)');
});
afterAll(() => t.drop());

const COST = { correlated: false, walks: [], scans: [], table: 'engChangeNotices', rows: 1, expansions: [], costClass: 'test' };

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

test('a failed read keeps its error; nothing runs twice; the reads after it run in a new transaction', async () => {
  const reads = new PostgresReads(t.db, () => undefined);
  const failing = read('SELECT 1 / 0 AS "n"');
  const { value, sql, reads: ran } = await execs(() => reads.runTogether([read('SELECT count(*) AS "n" FROM "x"'), failing, read('SELECT "id" FROM "x" WHERE "id" = $1', [3])]));
  expect(value.map((o) => o.ok)).toEqual([true, false, true]);
  expect(value.map(rowOf)).toEqual([{ n: 3 }, undefined, { id: 3 }]);
  const failed = value[1];
  expect(failed?.ok === false && (failed.error as { code?: string }).code).toBe('22012');
  expect(ran).toEqual(['SELECT count(*) AS "n" FROM "x"', 'SELECT 1 / 0 AS "n"', 'SELECT "id" FROM "x" WHERE "id" = $1']);
  expect(sql).toEqual(['BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', 'ROLLBACK', 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', 'COMMIT']);
});

test('the reads before a failed one saw the first snapshot, those after it a later one', async () => {
  const reads = new PostgresReads(t.db, () => undefined);
  const count = read('SELECT count(*) AS "n" FROM "flaky"');
  // Another connection empties the table while the first transaction is rolled back.
  const emptyOnRollback = async (sql: string): Promise<void> => {
    if (sql === 'ROLLBACK') await t.db.run({ sql: 'DELETE FROM "flaky"', params: [] });
  };
  const { value } = await execs(() => reads.runTogether([count, read('SELECT 1 / 0 AS "n"'), count]), emptyOnRollback);
  expect(value.map(rowOf)).toEqual([{ n: 1 }, undefined, { n: 0 }]);
});

test('a failed read gives its connection back to the pool; a lost connection does not', async () => {
  const db = await createTestDatabase('pgreadspool', { max: 2 });
  try {
    let removed = 0;
    db.db.pool.on('remove', () => removed++);
    const reads = new PostgresReads(db.db, () => undefined);
    for (let i = 0; i < 5; i++) {
      const value = await reads.runTogether([read('SELECT 1 AS "one"'), read('SELECT 1 / 0 AS "n"'), read('SELECT 2 AS "two"')]);
      expect(value.map((o) => o.ok)).toEqual([true, false, true]);
    }
    expect(removed).toBe(0);
    // The server ends the connection in the middle of the reads: that one is not pooled again.
    const lost = await reads.runTogether([read('SELECT 1 AS "one"'), read('SELECT pg_terminate_backend(pg_backend_pid()) AS "t"'), read('SELECT 2 AS "two"')]);
    expect(lost.map((o) => o.ok)).toEqual([true, false, true]);
    expect(removed).toBe(1);
  } finally {
    await db.drop();
  }
});

test('when no new transaction can begin after a failed read, the reads answered keep their answer and the rest get that error', async () => {
  const reads = new PostgresReads(t.db, () => undefined);
  const gone = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  let begins = 0;
  const secondBeginFails = async (sql: string): Promise<void> => {
    if (sql.startsWith('BEGIN') && ++begins === 2) throw gone;
  };
  const { value } = await execs(() => reads.runTogether([read('SELECT 1 AS "one"'), read('SELECT 1 / 0 AS "n"'), read('SELECT 2 AS "two"'), read('SELECT 3 AS "three"')]), secondBeginFails);
  expect(value.map(rowOf)).toEqual([{ one: 1 }, undefined, undefined, undefined]);
  expect(value.map((o) => (o.ok ? 'ok' : (o.error as { code?: string }).code))).toEqual(['ok', '22012', 'ECONNREFUSED', 'ECONNREFUSED']);
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

describe('heavy reads (a lambda over a collection) take places of the gate; the others do not', () => {
  /** A read that holds its connection `seconds`, heavy or not. */
  const sleeping = (seconds: number, correlated: boolean, owner: string): ReadRequest => {
    const steps = [{ kind: 'row', query: { sql: `SELECT pg_sleep(${seconds}) AS "slept"`, params: [] } }] as const;
    return { steps, cancellable: () => steps, cost: { ...COST, correlated }, owner };
  };

  test('with one place: the second heavy read waits for the first, a cheap read of another user answers meanwhile', async () => {
    const gate = new HeavyReadGate(1, 8, 5000);
    const reads = new PostgresReads(t.db, () => undefined, { gate });
    const order: string[] = [];
    const track = (name: string, p: Promise<unknown>): Promise<unknown> => p.then(() => order.push(name));
    const first = track('heavy 1', reads.run(sleeping(0.4, true, 'KLEE')));
    const second = track('heavy 2', reads.run(sleeping(0.4, true, 'KLEE')));
    expect(gate.load).toEqual({ running: 1, waiting: 1 });
    await track('cheap', reads.run(sleeping(0, false, 'JSMITH')));
    expect(order).toEqual(['cheap']);
    await Promise.all([first, second]);
    expect(order).toEqual(['cheap', 'heavy 1', 'heavy 2']);
    expect(gate.load).toEqual({ running: 0, waiting: 0 });
    // A batch's reads with a heavy one among them take one place together.
    const together = reads.runTogether([sleeping(0, false, 'KLEE'), sleeping(0.1, true, 'KLEE')]);
    expect(gate.load).toEqual({ running: 1, waiting: 0 });
    expect((await together).map((o) => o.ok)).toEqual([true, true]);
  });
});

describe('large reads take places of the gate too; a batch\'s reads are priced on the kept set counts', () => {
  beforeAll(async () => {
    await t.db.exec('CREATE TABLE "_setCounts" ("table" text NOT NULL, "companyId" text NOT NULL, "n" bigint NOT NULL); INSERT INTO "_setCounts" VALUES (\'big\', \'a\', 60000), (\'big\', \'b\', 40000), (\'small\', \'a\', 10)');
  });

  /** A read of `table` that holds its connection `seconds`, scanning its table (a filtered page of one entity). */
  const scanning = (seconds: number, table: string, owner: string): ReadRequest => {
    const steps = [{ kind: 'row', query: { sql: `SELECT pg_sleep(${seconds}) AS "slept"`, params: [] } }] as const;
    return { steps, cancellable: () => steps, cost: { ...COST, table, scans: [table] }, owner };
  };

  test('fullWork adds up the reads\' work with every company\'s rows of their tables', async () => {
    const reads = new PostgresReads(t.db, () => undefined);
    expect(await reads.fullWork([scanning(0, 'big', 'A'), scanning(0, 'small', 'A')])).toBe(100_000 + 30 + 10 + 30);
  });

  test('a scan expected past the light work holds a place; a small one, and one of another user, run beside it', async () => {
    const gate = new HeavyReadGate(1, 8, 5000);
    const reads = new PostgresReads(t.db, () => undefined, { gate, maxLightWork: 50_000 });
    await reads.fullWork([]); // the sizes are known from here on (the gate reads them without waiting)
    const order: string[] = [];
    const track = (name: string, p: Promise<unknown>): Promise<unknown> => p.then(() => order.push(name));
    const first = track('large 1', reads.run(scanning(0.4, 'big', 'KLEE')));
    const second = track('large 2', reads.run(scanning(0.4, 'big', 'KLEE')));
    expect(gate.load).toEqual({ running: 1, waiting: 1 });
    await track('small', reads.run(scanning(0, 'small', 'JSMITH')));
    expect(order).toEqual(['small']);
    await Promise.all([first, second]);
    expect(order).toEqual(['small', 'large 1', 'large 2']);
    // Small reads of a batch that add up past it take one place together.
    const together = reads.runTogether(Array.from({ length: 6 }, () => ({ ...scanning(0, 'small', 'KLEE'), cost: { ...COST, table: 'big', rows: 300 } })));
    expect(gate.load).toEqual({ running: 1, waiting: 0 });
    expect((await together).every((o) => o.ok)).toBe(true);
  });
});
