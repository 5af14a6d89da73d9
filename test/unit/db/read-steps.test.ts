/**
 * The steps of a read: pages end at their size or at the response budget, and say whether rows follow.
 */
import BetterSqlite3 from 'better-sqlite3';
import { runStep, type StepConnection } from '../../../src/db/read-steps.js';

const db = new BetterSqlite3(':memory:');
db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, j TEXT)');
const insert = db.prepare('INSERT INTO t VALUES (?, ?)');
for (let i = 1; i <= 10; i++) insert.run(i, JSON.stringify({ k: i, pad: 'x'.repeat(90) }));
const conn: StepConnection = {
  get: (q) => db.prepare(q.sql).get(...q.params) as Record<string, unknown> | undefined,
  iterateRows: (q) => db.prepare(q.sql).raw(true).iterate(...q.params) as IterableIterator<unknown[]>,
  iterate: (q) => db.prepare(q.sql).iterate(...q.params) as IterableIterator<Record<string, unknown>>,
};
const rows = { sql: 'SELECT j, k FROM t ORDER BY k LIMIT ?', params: [100] };

test('a page ends at its size and tells whether rows follow', () => {
  const r = runStep(conn, { kind: 'page', query: rows, size: 4, budget: 1e9 });
  expect(r).toMatchObject({ kind: 'page', count: 4, more: true, cut: false });
  if (r.kind !== 'page') throw new Error('page');
  expect(JSON.parse(`[${String(r.entities)}]`).map((e: { k: number }) => e.k)).toEqual([1, 2, 3, 4]);
  expect(r.last).toEqual([JSON.stringify({ k: 4, pad: 'x'.repeat(90) }), 4]);
  expect(runStep(conn, { kind: 'page', query: rows, size: 10, budget: 1e9 })).toMatchObject({ count: 10, more: false, cut: false });
  expect(runStep(conn, { kind: 'page', query: rows, size: 20, budget: 1e9 })).toMatchObject({ count: 10, more: false, cut: false });
});

test('a page ends once its texts pass the budget (the row that passes it is kept), and says it was cut', () => {
  const r = runStep(conn, { kind: 'page', query: rows, size: 10, budget: 250 });
  expect(r).toMatchObject({ kind: 'page', count: 3, more: true, cut: true });
  const last = runStep(conn, { kind: 'page', query: { sql: 'SELECT j, k FROM t WHERE k > 8 ORDER BY k', params: [] }, size: 10, budget: 10 });
  expect(last).toMatchObject({ count: 1, more: true, cut: true });
});

test('row objects for the JavaScript writer are cut the same way', () => {
  const q = { sql: 'SELECT k, j FROM t ORDER BY k', params: [] };
  expect(runStep(conn, { kind: 'rows', query: q, size: 5, budget: 1e9 })).toMatchObject({ kind: 'rows', more: true, cut: false });
  const cut = runStep(conn, { kind: 'rows', query: q, size: 10, budget: 300 });
  expect(cut).toMatchObject({ kind: 'rows', more: true, cut: true });
  if (cut.kind !== 'rows') throw new Error('rows');
  expect(cut.rows.map((r) => r['k'])).toEqual([1, 2, 3]);
});
