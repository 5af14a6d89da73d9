/**
 * An instance starting while another writes (issue 17: the start-up migration exited 1 with "database
 * is locked" in 5 of 8 runs): its migration, event definitions and demo-data check wait for the write
 * lock (BEGIN IMMEDIATE with the busy timeout, retried) and run once; every start succeeds. The
 * database is a parameter as in several-serve-processes.test.ts (ECN_MULTI_INSTANCE_DB).
 */
import { createEmptyDatabase, onPostgres } from '../helpers/postgres.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServeProcess, type ServeProcess } from '../helpers/serve-process.js';

const STARTS = 6;

let dir: string;
const processes: ServeProcess[] = [];
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-start-'));
});
afterAll(() => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

test(`${STARTS} starts of a second instance while the first takes writes all succeed, and none of the writes fails`, async () => {
  const db = process.env['ECN_MULTI_INSTANCE_DB'] ?? (onPostgres() ? (await createEmptyDatabase('multi')).url : path.join(dir, 'shared.sqlite'));
  const first = await startServeProcess([], db);
  processes.push(first);
  let writing = true;
  const statuses: number[] = [];
  const writer = async (): Promise<void> => {
    while (writing) {
      const res = await fetch(`${first.url}/engChangeNotices`, { method: 'POST', headers: { authorization: `Bearer ${first.token}`, 'content-type': 'application/json' }, body: '{}' });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
  };
  const writers = Promise.all(Array.from({ length: 4 }, writer));
  try {
    for (let i = 0; i < STARTS; i++) {
      const second = await startServeProcess([], db);
      processes.push(second);
      const res = await fetch(`${second.url}/engChangeNotices?$top=1`, { headers: { authorization: `Bearer ${second.token}` } });
      expect(res.status).toBe(200);
      const exited = new Promise<number | null>((resolve) => second.child.once('exit', (code) => resolve(code)));
      second.stop();
      expect(await exited).toBe(0);
    }
  } finally {
    writing = false;
    await writers;
  }
  expect(statuses.length).toBeGreaterThan(STARTS);
  expect(statuses.filter((s) => s !== 201)).toEqual([]);
  first.stop();
}, 90_000);
