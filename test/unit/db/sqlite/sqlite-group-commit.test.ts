/**
 * src/db/sqlite/sqlite-group-commit.ts: write transactions queued in one event-loop turn share one COMMIT, each in
 * its own savepoint.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { openDatabase, type Database } from '../../../../src/db/sqlite/sqlite-database.js';

let db: Database;
let log: string[];
beforeEach(() => {
  db = openDatabase(':memory:');
  db.exec('CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT, parent INTEGER REFERENCES parent(id))');
  log = [];
  const exec = db.raw.exec.bind(db.raw);
  db.raw.exec = (sql: string) => {
    log.push(sql);
    return exec(sql);
  };
});
afterEach(() => db.close());

const insert = (id: number, v = `v${id}`) => () => db.raw.prepare('INSERT INTO t (id, v) VALUES (?, ?)').run(id, v).changes;
const rows = () => db.raw.prepare('SELECT id, v FROM t ORDER BY id').all();

test('bodies queued in one turn commit together, in queue order, each seeing the ones before', async () => {
  const seen: number[] = [];
  const results = await Promise.all([
    db.sharedTransaction(insert(1)),
    db.sharedTransaction(insert(2)),
    db.sharedTransaction(() => {
      seen.push((db.raw.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n);
      return insert(3)();
    }),
  ]);
  expect(results).toEqual([1, 1, 1]);
  expect(seen).toEqual([2]);
  expect(log).toEqual(['BEGIN IMMEDIATE', 'COMMIT']);
  expect(rows()).toEqual([{ id: 1, v: 'v1' }, { id: 2, v: 'v2' }, { id: 3, v: 'v3' }]);
});

test('a body that throws is rolled back alone and gets its own error; the others commit', async () => {
  const outcomes = await Promise.allSettled([
    db.sharedTransaction(insert(1)),
    db.sharedTransaction(() => {
      insert(2)();
      throw new Error('refused');
    }),
    db.sharedTransaction(insert(1, 'again')), // primary key taken by the first body
    db.sharedTransaction(insert(4)),
  ]);
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
  expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe('refused');
  expect((outcomes[2] as PromiseRejectedResult).reason.code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
  expect(rows()).toEqual([{ id: 1, v: 'v1' }, { id: 4, v: 'v4' }]);
  expect(log).toEqual(['BEGIN IMMEDIATE', 'COMMIT']);
});

test('when the shared COMMIT fails, every body of the batch fails and nothing is written', async () => {
  const outcomes = await Promise.allSettled([
    db.sharedTransaction(insert(1)),
    db.sharedTransaction(() => {
      // A deferred foreign key violation is only detected by COMMIT.
      db.raw.pragma('defer_foreign_keys = ON');
      return db.raw.prepare('INSERT INTO t (id, v, parent) VALUES (2, ?, 99)').run('orphan').changes;
    }),
    db.sharedTransaction(insert(3)),
  ]);
  expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
  for (const o of outcomes) expect((o as PromiseRejectedResult).reason.code).toBe('SQLITE_CONSTRAINT_FOREIGNKEY');
  expect(rows()).toEqual([]);
  expect(db.raw.inTransaction).toBe(false);
  // The connection is usable again.
  await expect(db.sharedTransaction(insert(5))).resolves.toBe(1);
});

test('a body whose error ends the shared transaction fails every body of the batch; nothing is written', async () => {
  const outcomes = await Promise.allSettled([
    db.sharedTransaction(insert(1)),
    db.sharedTransaction(() => {
      db.raw.exec('ROLLBACK'); // what SQLite itself does on e.g. a full disk
      throw new Error('disk full');
    }),
    db.sharedTransaction(insert(3)),
  ]);
  expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
  expect(rows()).toEqual([]);
  expect(db.raw.inTransaction).toBe(false);
});

test('an async body (one that awaits its statements) runs in the shared transaction; when it rejects, it is rolled back alone', async () => {
  const later = async (id: number): Promise<number> => {
    await Promise.resolve();
    const n = insert(id)();
    await Promise.resolve();
    return n;
  };
  const outcomes = await Promise.allSettled([
    db.sharedTransaction(() => later(1)),
    db.sharedTransaction(async () => {
      await later(2);
      throw new Error('refused');
    }),
    db.sharedTransaction(insert(3)),
  ]);
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect(rows()).toEqual([{ id: 1, v: 'v1' }, { id: 3, v: 'v3' }]);
  expect(log).toEqual(['BEGIN IMMEDIATE', 'COMMIT']);
});

test('a transaction asked for inside a running body is a savepoint of it: its throw undoes only its own work', async () => {
  await db.sharedTransaction(async () => {
    insert(1)();
    await expect(
      db.sharedTransaction(async () => {
        insert(2)();
        throw new Error('inner');
      }),
    ).rejects.toThrow('inner');
    await db.sharedTransaction(insert(3));
  });
  expect((rows() as { id: number }[]).map((r) => r.id)).toEqual([1, 3]);
  expect(log.filter((s) => s === 'COMMIT')).toHaveLength(1);
});

test('while a body awaits real I/O, another caller\'s transaction is not joined into it: it commits in a batch of its own', async () => {
  let other: Promise<number> | undefined;
  const slow = db.sharedTransaction(async () => {
    insert(1)();
    // Asked for by someone else (a timer) while the slow body waits.
    setTimeout(() => {
      other = db.sharedTransaction(insert(2));
    }, 5);
    await new Promise((resolve) => setTimeout(resolve, 30));
    throw new Error('refused late');
  });
  await expect(slow).rejects.toThrow('refused late');
  await expect(other).resolves.toBe(1);
  expect(rows()).toEqual([{ id: 2, v: 'v2' }]);
  expect(log.filter((s) => s === 'COMMIT')).toHaveLength(2);
});

test('a request that starts while a body awaits real I/O, before the next check phase, is not joined into it', async () => {
  let other: Promise<number> | undefined;
  const slow = db.sharedTransaction(async () => {
    insert(1)();
    // Due before the body's I/O completes: it runs in the next loop iteration's timers phase, ahead of
    // the check phase that would tell the batch the turn passed. It starts a request as core/handle.ts does.
    setTimeout(() => {
      db.enterRequest(false);
      other = db.sharedTransaction(insert(2));
      db.leaveRequest();
    }, 0);
    const until = Date.now() + 3;
    while (Date.now() < until); // the timer is due when this turn ends
    await fs.promises.stat(os.tmpdir());
    await new Promise((resolve) => setTimeout(resolve, 5));
    throw new Error('refused late');
  });
  await expect(slow).rejects.toThrow('refused late');
  await expect(other).resolves.toBe(1);
  expect(rows()).toEqual([{ id: 2, v: 'v2' }]);
});

test('a batch holds at most 32 bodies; the rest commit in the next turns, in order', async () => {
  const ids = Array.from({ length: 70 }, (_, i) => i + 1);
  await Promise.all(ids.map((id) => db.sharedTransaction(insert(id))));
  expect(log.filter((s) => s === 'COMMIT')).toHaveLength(3);
  expect((rows() as { id: number }[]).map((r) => r.id)).toEqual(ids);
});

test('a body queued alone runs in a transaction of its own', async () => {
  await db.sharedTransaction(insert(1));
  await db.sharedTransaction(insert(2));
  expect(log).toEqual(['BEGIN IMMEDIATE', 'COMMIT', 'BEGIN IMMEDIATE', 'COMMIT']);
  expect(rows()).toHaveLength(2);
});

describe('another connection on the same file (another process)', () => {
  let dir: string;
  let file: string;
  let mine: Database;
  let other: BetterSqlite3.Database;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'group-commit-'));
    file = path.join(dir, 'db.sqlite');
    mine = openDatabase(file);
    mine.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    mine.raw.prepare('INSERT INTO t (id, v) VALUES (1, ?)').run('a');
    other = new BetterSqlite3(file, { timeout: 0 });
  });
  afterEach(() => {
    other.close();
    mine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a transaction that reads and then writes takes the write lock first: no SQLITE_BUSY_SNAPSHOT when another writer commits between', async () => {
    let otherWrite: unknown;
    const done = await mine.sharedTransaction(() => {
      const before = mine.raw.prepare('SELECT v FROM t WHERE id = 1').get() as { v: string };
      try {
        other.prepare("UPDATE t SET v = 'other' WHERE id = 1").run();
      } catch (e) {
        otherWrite = (e as { code?: string }).code;
      }
      return mine.raw.prepare('UPDATE t SET v = ? WHERE id = 1').run(`${before.v}+mine`).changes;
    });
    expect(done).toBe(1);
    // The other writer waited for (here: was refused) the lock this transaction took up front.
    expect(otherWrite).toBe('SQLITE_BUSY');
    expect(other.prepare('SELECT v FROM t WHERE id = 1').get()).toEqual({ v: 'a+mine' });
  });

  test('a batch that finds the database locked past the busy timeout runs again after a pause, off the event loop', async () => {
    mine.raw.pragma('busy_timeout = 0');
    other.exec('BEGIN IMMEDIATE');
    setTimeout(() => other.open && other.exec('COMMIT'), 20);
    await expect(mine.sharedTransaction(() => mine.raw.prepare("UPDATE t SET v = 'later' WHERE id = 1").run().changes)).resolves.toBe(1);
    expect(other.prepare('SELECT v FROM t WHERE id = 1').get()).toEqual({ v: 'later' });
  });

  test('a database that stays locked fails the batch with the busy error (a 503 to retry), after a few runs', async () => {
    mine.raw.pragma('busy_timeout = 0');
    other.exec('BEGIN IMMEDIATE');
    try {
      await expect(mine.sharedTransaction(() => 1)).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
      expect(log).toEqual([]);
    } finally {
      other.exec('COMMIT');
    }
  });
});
