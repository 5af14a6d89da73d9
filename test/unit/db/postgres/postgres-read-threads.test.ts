/**
 * PostgreSQL's read threads (src/db/postgres/postgres-read-threads.ts, postgres-read-worker.ts) on a
 * real server: a heavy read answers in a thread what the same steps answer on the event loop (a large
 * page crossing as bytes, row objects, single rows, a batch's reads with one failing); a read past its
 * deadline (running: its statement_timeout; waiting: the pool's) is the deadline's 503 with
 * Retry-After; a driver's error keeps its SQLSTATE, so the engine maps it as on the event loop; a cheap
 * read of another user answers while heavy reads fill the threads; the threads' connections count against the instance's; closing the engine ends them. The
 * threads run the compiled code (npm run test:postgres builds it first).
 */
import pino from 'pino';
import { createTestDatabase, type TestDatabase } from '../../../helpers/postgres.js';
import { HeavyReadGate } from '../../../../src/db/heavy-read-gate.js';
import { PostgresReads, readOn } from '../../../../src/db/postgres/postgres-reads.js';
import { postgresReadThreads, readConnections } from '../../../../src/db/postgres/postgres-read-threads.js';
import { openPostgresEngine } from '../../../../src/db/postgres/postgres-engine.js';
import { postgresError } from '../../../../src/db/postgres/postgres-errors.js';
import type { ReadThreadPool } from '../../../../src/db/read-thread-pool.js';
import type { ReadRequest } from '../../../../src/db/engine.js';
import type { ReadStep, StepResult } from '../../../../src/db/read-steps.js';
import { DEFAULT_LIMITS } from '../../../../src/edm/service-limits.js';
import { ODataError } from '../../../../src/errors/odata-error.js';

let t: TestDatabase;
let threads: ReadThreadPool;
const log = pino({ level: 'silent' });
const LIMITS = { ...DEFAULT_LIMITS, requestTimeoutMs: 600 };

beforeAll(async () => {
  t = await createTestDatabase('pgthreads');
  await t.db.exec(`CREATE TABLE "e" ("k" integer PRIMARY KEY, "j" text NOT NULL);
    INSERT INTO "e" SELECT i, json_build_object('k', i, 'name', 'entity ' || i || ' é', 'pad', repeat('x', 40))::text FROM generate_series(1, 3000) AS i`);
  threads = postgresReadThreads([t.url], readConnections(10, 1), LIMITS, log);
});
afterAll(async () => {
  await threads.close();
  await t.drop();
});

const COST = { correlated: true, walks: [], scans: [], table: 'e', rows: 1, expansions: [], costClass: 'test' };

/** A read of `steps`, heavy (correlated) or not. */
function read(steps: readonly ReadStep[], correlated: boolean, owner: string): ReadRequest {
  return { steps, cancellable: () => steps, cost: { ...COST, correlated }, owner };
}

const page: ReadStep = { kind: 'page', query: { sql: 'SELECT "j", "k" FROM "e" ORDER BY "k" LIMIT $1', params: [2001] }, size: 2000, budget: 1e9 };
const rows: ReadStep = { kind: 'rows', query: { sql: 'SELECT "k", "j" FROM "e" WHERE "k" <= $1 ORDER BY "k"', params: [50] }, size: 40, budget: 1e9 };
const row: ReadStep = { kind: 'row', query: { sql: 'SELECT count(*)::integer AS "n" FROM "e"', params: [] } };
const sleep = (seconds: number): ReadStep => ({ kind: 'row', query: { sql: `SELECT pg_sleep(${seconds}) AS "slept"`, params: [] } });

/** A result as the response writer reads it: a page's entities as text, however they crossed. */
function asText(r: StepResult): unknown {
  return r.kind === 'page' ? { ...r, entities: typeof r.entities === 'string' ? r.entities : Buffer.from(r.entities).toString('utf8') } : r;
}

test('the share of --db-connections: two connections per read thread (at most half of the read connections), the pool the rest', () => {
  expect(readConnections(10, 1)).toEqual({ pool: 7, heavy: 2, threads: 1 });
  expect(readConnections(10, 2)).toEqual({ pool: 5, heavy: 4, threads: 2 });
  expect(readConnections(10, 8)).toEqual({ pool: 5, heavy: 4, threads: 4 });
  expect(readConnections(3, 1)).toEqual({ pool: 1, heavy: 1, threads: 1 });
  // One read connection, or no read threads: heavy reads take turns on the pool (the gate).
  expect(readConnections(2, 1)).toEqual({ pool: 1, heavy: 1, threads: 0 });
  expect(readConnections(10, 0)).toEqual({ pool: 9, heavy: 4, threads: 0 });
});

test('a heavy read answers in a thread what the same steps answer on the event loop; the page crosses as bytes', async () => {
  const reads = new PostgresReads(t.db, () => undefined, { threads: { pool: threads, target: 0 } });
  const steps = [page, rows, row];
  const inline = await readOn(t.db, steps);
  const threaded = await reads.run(read(steps, true, 'KLEE'));
  expect(threaded[0]?.kind === 'page' && threaded[0].entities instanceof Uint8Array).toBe(true);
  expect(threaded.map(asText)).toEqual(inline.map(asText));
  expect(inline[0]).toMatchObject({ kind: 'page', count: 2000, more: true, cut: false });
  // A batch's reads in one job: each read's failure is its own, the others answer.
  const bad: ReadStep = { kind: 'row', query: { sql: 'SELECT 1 / (count(*) - count(*)) AS "n" FROM "e"', params: [] } };
  const outcomes = await reads.runTogether([read([row], true, 'KLEE'), read([bad], true, 'KLEE'), read([rows], false, 'KLEE')]);
  expect(outcomes.map((o) => o.ok)).toEqual([true, false, true]);
  expect(outcomes[0]?.ok === true && outcomes[0].results).toEqual(await readOn(t.db, [row]));
  expect(outcomes[2]?.ok === true && outcomes[2].results).toEqual(await readOn(t.db, [rows]));
});

test('a driver error keeps its SQLSTATE across the thread, so the engine maps it as on the event loop', async () => {
  const overflow: ReadStep = { kind: 'row', query: { sql: 'SELECT (2147483647 + "k")::integer AS "n" FROM "e" WHERE "k" = 1', params: [] } };
  const error = await threads.run([overflow]).catch((e: unknown) => e);
  expect((error as { code?: string }).code).toBe('22003');
  expect(postgresError(error, LIMITS.requestTimeoutMs)?.status).toBe(400);
});

test('past the deadline: a running statement ends at its statement_timeout, a read still waiting its turn at the deadline; both 503 with Retry-After', async () => {
  const t0 = Date.now();
  // Four run (the threads' connections), the fifth waits.
  const errors = await Promise.all(Array.from({ length: 5 }, () => threads.run([sleep(3)], 'KLEE').catch((e: unknown) => e)));
  expect(Date.now() - t0).toBeLessThan(2 * LIMITS.requestTimeoutMs + 400);
  for (const e of errors) {
    const mapped = e instanceof ODataError ? e : postgresError(e, LIMITS.requestTimeoutMs);
    expect(mapped?.status).toBe(503);
    expect(mapped?.headers?.['Retry-After']).toBe('1');
  }
  // The statements ended by their time limit, not the thread's end: it goes on serving.
  expect(await threads.run([row])).toEqual(await readOn(t.db, [row]));
  expect(threads.started).toBe(1);
});

test('a cheap read of another user answers while heavy reads fill the threads', async () => {
  const reads = new PostgresReads(t.db, () => undefined, { threads: { pool: threads, target: 0 } });
  const heavy = Array.from({ length: 3 }, () => reads.run(read([sleep(0.25)], true, 'KLEE')));
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(threads.load).toEqual({ running: 2, waiting: 1 });
  const t0 = Date.now();
  await reads.run(read([row], false, 'JSMITH'));
  expect(Date.now() - t0).toBeLessThan(200);
  expect(threads.load.running).toBe(2);
  await Promise.all(heavy);
});

test('with the lambda gate, the lambda reads take the threads one at a time (the others wait at the gate)', async () => {
  const lambdas = new HeavyReadGate(1, 8, LIMITS.requestTimeoutMs);
  const reads = new PostgresReads(t.db, () => undefined, { threads: { pool: threads, target: 0 }, lambdas });
  const correlated = Array.from({ length: 3 }, () => reads.run(read([sleep(0.1)], true, 'KLEE')));
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(threads.load).toEqual({ running: 1, waiting: 0 });
  expect(await Promise.all(correlated)).toHaveLength(3);
});

test('an engine closes its read threads and their connections', async () => {
  const engine = openPostgresEngine(t.url, LIMITS, 6, [], log);
  const connections = async (): Promise<number> => Number((await t.db.get({ sql: `SELECT count(*)::integer AS "n" FROM pg_stat_activity WHERE "datname" = current_database() AND "application_name" = 'ecn-odata'`, params: [] }))?.['n']);
  const before = await connections();
  await engine.reads.run(read([row], true, 'KLEE'));
  expect(await connections()).toBe(before + 1);
  await engine.close();
  for (let i = 0; i < 50 && (await connections()) > before; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(await connections()).toBe(before);
});
