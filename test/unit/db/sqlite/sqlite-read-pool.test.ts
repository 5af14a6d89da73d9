/**
 * Read threads: a job answers what the same steps answer on the event loop; a job past its deadline is
 * answered 503 at the deadline and its statement ends in the thread; too many waiting is a 503 at once;
 * a thread that dies fails its job with a 503 and the pool goes on with a new one. The threads run the
 * compiled code (npm test builds it first).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pino from 'pino';
import { ReadPool } from '../../../../src/db/sqlite/sqlite-read-pool.js';
import { runSteps, type ReadStep } from '../../../../src/db/read-steps.js';
import { compile } from '../../../../src/sql/compile.js';
import { sqliteDialect } from '../../../../src/db/sqlite/sqlite-dialect.js';
import { col, constant, select } from '../../../../src/sql/build.js';
import { ServiceUnavailableError } from '../../../../src/errors/odata-error.js';

const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'read-pool-')), 'db.sqlite');
const db = new BetterSqlite3(file);
db.pragma('journal_mode = WAL');
db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, j TEXT)');
const insert = db.prepare('INSERT INTO t VALUES (?, ?)');
db.transaction(() => {
  for (let i = 1; i <= 2000; i++) insert.run(i, JSON.stringify({ k: i }));
})();
afterAll(() => db.close());

const log = pino({ level: 'silent' });
const pageOf = (cancellable: boolean): ReadStep[] => [
  { kind: 'page', query: compile(select({ columns: [{ expr: col('t', 'j') }, { expr: col('t', 'k') }], from: { kind: 'table', table: 't', alias: 't' }, orderBy: [{ expr: col('t', 'k'), direction: 'ASC' }] }), sqliteDialect, { cancellable }), size: 50, budget: 1e9 },
];
/**
 * For each of 2,000 rows, every row b scans for a c LIKE b (no index serves it) and finds it halfway
 * on average: billions of row visits, minutes of work unless cancelled.
 */
const endless = compile(select({
  columns: [{ expr: { kind: 'call', name: 'count', args: [{ kind: 'star' }] }, alias: 'n' }],
  from: { kind: 'table', table: 't', alias: 'a' },
  where: {
    kind: 'exists',
    negated: true,
    query: select({
      columns: [{ expr: constant(1) }],
      from: { kind: 'table', table: 't', alias: 'b' },
      where: {
        kind: 'binary',
        operator: 'AND',
        left: { kind: 'binary', operator: '<>', left: col('b', 'k'), right: col('a', 'k') },
        right: { kind: 'exists', negated: true, query: select({ columns: [{ expr: constant(1) }], from: { kind: 'table', table: 't', alias: 'c' }, where: { kind: 'like', operand: col('c', 'j'), pattern: col('b', 'j'), escape: '\\' } }) },
      },
    }),
  },
}), sqliteDialect, { cancellable: true });

test('a job answers what the same steps answer on the event loop', async () => {
  const pool = new ReadPool({ file, threads: 1, maxQueued: 4, timeoutMs: 5000 }, log);
  try {
    const inline = runSteps({ get: (q) => db.prepare(q.sql).get(...q.params) as Record<string, unknown>, iterateRows: (q) => db.prepare(q.sql).raw(true).iterate(...q.params) as IterableIterator<unknown[]>, iterate: (q) => db.prepare(q.sql).iterate(...q.params) as IterableIterator<Record<string, unknown>> }, pageOf(false));
    const threaded = await pool.run(pageOf(true));
    expect(threaded).toEqual(inline);
    expect(pool.started).toBe(1);
  } finally {
    await pool.close();
  }
});

test('past its deadline a job is a 503 at once, the statement ends in its thread, and the thread serves the next job', async () => {
  const pool = new ReadPool({ file, threads: 1, maxQueued: 4, timeoutMs: 300, graceMs: 5000 }, log);
  try {
    const started = Date.now();
    await expect(pool.run([{ kind: 'row', query: endless }])).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(Date.now() - started).toBeLessThan(1500);
    // The same thread (no replacement: it came back by itself) answers the next job.
    const next = await pool.run(pageOf(true));
    expect(next[0]).toMatchObject({ kind: 'page', count: 50 });
    expect(pool.started).toBe(1);
  } finally {
    await pool.close();
  }
});

test('too many jobs waiting: 503 at once; a waiting job\'s time counts from when it came; a thread stuck past its deadline is replaced', async () => {
  const pool = new ReadPool({ file, threads: 1, maxQueued: 1, timeoutMs: 400, graceMs: 600 }, log);
  try {
    // Compiled without the liveness checks (2,000 x 2,000 x 3 LIKE tests, a second or two): the thread
    // cannot end it early and stays busy past its deadline until the watchdog lets it go.
    const slow = select({
      columns: [{ expr: { kind: 'call', name: 'count', args: [{ kind: 'star' }] }, alias: 'n' }],
      from: { kind: 'table', table: 't', alias: 'a' },
      joins: [
        { type: 'INNER', from: { kind: 'table', table: 't', alias: 'b' }, on: { kind: 'like', operand: col('a', 'j'), pattern: col('b', 'j'), escape: '\\' } },
        { type: 'INNER', from: { kind: 'derived', query: select({ columns: [{ expr: col('t', 'k'), alias: 'k' }], from: { kind: 'table', table: 't', alias: 't' }, limit: constant(3) }), alias: 'c' }, on: constant(1) },
      ],
    });
    const stuck = compile(slow, sqliteDialect);
    const first = pool.run([{ kind: 'row', query: stuck }]);
    const second = pool.run(pageOf(true));
    const third = pool.run(pageOf(true));
    await expect(third).rejects.toThrow(/busy with other large reads \(1 waiting, limits\.maxQueuedReads/);
    await expect(first).rejects.toBeInstanceOf(ServiceUnavailableError);
    await expect(second).rejects.toThrow(/did not finish within 400 ms/);
    await new Promise((resolve) => setTimeout(resolve, 800)); // the watchdog replaces the stuck thread
    await expect(pool.run(pageOf(true))).resolves.toHaveLength(1);
    expect(pool.started).toBe(1);
  } finally {
    await pool.close();
  }
});

test('a thread that dies fails its job with a 503; the next job gets a new thread', async () => {
  const pool = new ReadPool({ file, threads: 1, maxQueued: 4, timeoutMs: 5000 }, log);
  try {
    await pool.run(pageOf(true));
    const slot = (pool as unknown as { slots: { worker: { terminate(): Promise<number> } }[] }).slots[0];
    const running = pool.run([{ kind: 'row', query: endless }]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await slot?.worker.terminate();
    await expect(running).rejects.toBeInstanceOf(ServiceUnavailableError);
    await expect(pool.run(pageOf(true))).resolves.toHaveLength(1);
  } finally {
    await pool.close();
  }
});

describe('several reads in one job (a batch\'s GETs)', () => {
  const countRows = (): ReadStep[] => [{ kind: 'row', query: compile(select({ columns: [{ expr: { kind: 'call', name: 'count', args: [{ kind: 'star' }] }, alias: 'n' }], from: { kind: 'table', table: 't', alias: 't' } }), sqliteDialect, { cancellable: true }) }];
  /** A read that takes a while (a recursive count to three million), so a commit can land during the job. */
  const slow: ReadStep[] = [{ kind: 'row', query: { sql: 'WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 3000000) SELECT count(*) AS n FROM r', params: [] } }];

  test('they see one snapshot: a row committed while the job runs is in none of them or in all', async () => {
    const pool = new ReadPool({ file, threads: 1, maxQueued: 4, timeoutMs: 20_000 }, log);
    try {
      await pool.run(pageOf(true)); // the thread is up
      const job = pool.runTogether([countRows(), slow, countRows()]);
      await new Promise((resolve) => setTimeout(resolve, 20));
      insert.run(100_000 + Math.floor(Math.random() * 1e6), '{}');
      const [first, , last] = await job;
      expect(first).toMatchObject({ ok: true });
      expect(last).toEqual(first);
      // A read after the job sees the new row.
      const after = await pool.run(countRows());
      expect(after[0]).toMatchObject({ kind: 'row', row: { n: (first as unknown as { results: { row: { n: number } }[] }).results[0]!.row.n + 1 } });
    } finally {
      await pool.close();
    }
  });

  test("each read's own error is its outcome; the others answer", async () => {
    const pool = new ReadPool({ file, threads: 1, maxQueued: 4, timeoutMs: 5000 }, log);
    try {
      const broken: ReadStep[] = [{ kind: 'row', query: { sql: 'SELECT * FROM no_such_table', params: [] } }];
      const [a, b, c] = await pool.runTogether([pageOf(true), broken, countRows()]);
      expect(a).toMatchObject({ ok: true, results: [{ kind: 'page', count: 50 }] });
      expect(b).toMatchObject({ ok: false, error: expect.objectContaining({ message: expect.stringContaining('no_such_table') }) });
      expect(c).toMatchObject({ ok: true });
    } finally {
      await pool.close();
    }
  });
});
