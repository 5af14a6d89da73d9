/**
 * Opening a database forgets ANALYZE's value samples (sqlite_stat4) and keeps its per-index statistics
 * (sqlite_stat1): with samples, SQLite re-prepares a statement whenever a value the plan consulted is
 * bound, which is every run of our shared, parameterised statements.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { openDatabase } from '../../../../src/db/sqlite/sqlite-database.js';

test('sqlite_stat4 is emptied at open, sqlite_stat1 is kept, and the planner still uses the index', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stat4-'));
  const file = path.join(dir, 'db.sqlite');
  try {
    const setup = new BetterSqlite3(file);
    setup.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, c TEXT NOT NULL, n INTEGER NOT NULL); CREATE INDEX t_c_n ON t (c, n);');
    const insert = setup.prepare('INSERT INTO t (c, n) VALUES (?, ?)');
    setup.transaction(() => {
      for (let i = 0; i < 2000; i++) insert.run(i % 10 === 0 ? 'rare' : 'common', i);
    })();
    setup.exec('ANALYZE');
    expect((setup.prepare('SELECT count(*) AS n FROM sqlite_stat4').get() as { n: number }).n).toBeGreaterThan(0);
    await setup.close();

    const db = openDatabase(file);
    expect((db.raw.prepare('SELECT count(*) AS n FROM sqlite_stat4').get() as { n: number }).n).toBe(0);
    expect((db.raw.prepare('SELECT count(*) AS n FROM sqlite_stat1').get() as { n: number }).n).toBeGreaterThan(0);
    const plan = db.raw.prepare('EXPLAIN QUERY PLAN SELECT id FROM t WHERE c = ? ORDER BY n LIMIT CAST(? AS INTEGER)').all('rare', 5) as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toContain('USING COVERING INDEX t_c_n');
    db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a database without statistics opens unchanged', async () => {
  const db = openDatabase(':memory:');
  expect(db.raw.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name LIKE 'sqlite_stat%'").get()).toEqual({ n: 0 });
  db.close();
});
