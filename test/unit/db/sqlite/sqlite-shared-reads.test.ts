/**
 * src/db/sqlite/sqlite-shared-reads.ts: the reads of the requests of one event-loop turn share a snapshot; a write,
 * the end of the turn, or a request that must see the newest data ends it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { openDatabase, type Database } from '../../../../src/db/sqlite/sqlite-database.js';

let dir: string;
let db: Database;
let other: BetterSqlite3.Database;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shared-reads-'));
  db = openDatabase(path.join(dir, 'db.sqlite'));
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, \'first\')');
  other = new BetterSqlite3(path.join(dir, 'db.sqlite'), { timeout: 0 });
});
afterEach(async () => {
  await other.close();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const read = (): unknown => db.get({ sql: 'SELECT v FROM t WHERE id = 1', params: [] })?.['v'];
const writeElsewhere = (v: string): void => {
  other.prepare('UPDATE t SET v = ? WHERE id = 1').run(v);
};
const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

test('requests of one turn read one snapshot; the next turn sees later commits', async () => {
  db.enterRequest(true);
  expect(read()).toBe('first');
  writeElsewhere('second');
  db.enterRequest(true); // a second request read in the same turn
  expect(read()).toBe('first');
  db.leaveRequest();
  db.leaveRequest();
  await nextTurn();
  db.enterRequest(true);
  expect(read()).toBe('second');
  db.leaveRequest();
});

test('a request that does not join the turn (an in-process caller) reads the newest data', () => {
  db.enterRequest(true);
  expect(read()).toBe('first');
  db.leaveRequest();
  writeElsewhere('second');
  db.enterRequest(false);
  expect(read()).toBe('second');
  db.leaveRequest();
});

test('a write ends the snapshot first: it reads and changes the newest data', async () => {
  db.enterRequest(true);
  expect(read()).toBe('first');
  writeElsewhere('second');
  // In the old snapshot this UPDATE would fail (SQLITE_BUSY_SNAPSHOT) or build on stale data.
  const seen = db.transaction(() => {
    const v = read();
    db.run({ sql: 'UPDATE t SET v = v || ? WHERE id = 1', params: ['+mine'] });
    return v;
  });
  expect(seen).toBe('second');
  expect(read()).toBe('second+mine');
  await expect(db.sharedTransaction(() => db.run({ sql: 'UPDATE t SET v = ? WHERE id = 1', params: ['third'] }))).resolves.toBe(1);
  db.leaveRequest();
  expect(other.prepare('SELECT v FROM t WHERE id = 1').get()).toEqual({ v: 'third' });
});

test('outside requests every read is its own transaction, and a snapshot does not outlive its turn', async () => {
  expect(read()).toBe('first');
  writeElsewhere('second');
  expect(read()).toBe('second');
  // A reader holding an old snapshot keeps a checkpoint from emptying the WAL: observable from outside.
  const checkpointBusy = (): number => (other.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[])[0]?.busy ?? -1;
  db.enterRequest(true);
  read();
  db.leaveRequest();
  writeElsewhere('third');
  expect(checkpointBusy()).toBe(1);
  await nextTurn();
  expect(checkpointBusy()).toBe(0);
});
