/**
 * A revoked token or grant is refused by every instance (conventions §10): two `serve` processes on one
 * database each cache tokens, users and grants (src/auth/access-cache.ts), and a third process (the
 * command line) changes them. The cache is checked against the access version once per read snapshot,
 * and a snapshot opens after the request arrived, so the first request sent after the change commits
 * sees it, on either instance: no waiting period at all on SQLite. The database is a parameter as in
 * several-serve-processes.test.ts (ECN_MULTI_INSTANCE_DB).
 */
import { createEmptyDatabase, onPostgres } from '../helpers/postgres.js';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, startServeProcess, type ServeProcess } from '../helpers/serve-process.js';

let dir: string;
const processes: ServeProcess[] = [];
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-access-'));
});
afterAll(() => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

function cli(db: string, ...args: string[]): string {
  const r = spawnSync(process.execPath, [BIN, ...args, '--db', db], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ecn-odata ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

test('a token revoked and a grant removed or given through the command line count on both instances from the next request', async () => {
  const db = process.env['ECN_MULTI_INSTANCE_DB'] ?? (onPostgres() ? (await createEmptyDatabase('multi')).url : path.join(dir, 'shared.sqlite'));
  const a = await startServeProcess([], db);
  processes.push(a);
  const b = await startServeProcess([], db);
  processes.push(b);
  const token = cli(db, 'token', '--user', 'JSMITH');
  const companies = await (await fetch(`${a.url}/companies?$filter=name eq 'CRONUS'`, { headers: { authorization: `Bearer ${a.token}` } })).json();
  const cronus = (companies as { value: { id: string }[] }).value[0]?.id;
  const status = async (p: ServeProcess): Promise<number> => {
    const res = await fetch(`${p.url}/companies(${cronus})/engChangeNotices?$top=1`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    return res.status;
  };
  // Warm both instances' caches with the token, the user and the grants.
  for (let i = 0; i < 5; i++) expect([await status(a), await status(b)]).toEqual([200, 200]);
  cli(db, 'revoke', '--user', 'JSMITH', '--company', 'CRONUS');
  const [afterRevokeA, afterRevokeB] = [await status(a), await status(b)];
  expect([afterRevokeA === 200, afterRevokeB === 200]).toEqual([false, false]);
  cli(db, 'grant', '--user', 'JSMITH', '--company', 'CRONUS', '--set', 'ECN-READ');
  expect([await status(a), await status(b)]).toEqual([200, 200]);
  cli(db, 'token', 'revoke', '--token', token);
  expect([await status(a), await status(b)]).toEqual([401, 401]);
  a.stop();
  b.stop();
}, 60_000);
