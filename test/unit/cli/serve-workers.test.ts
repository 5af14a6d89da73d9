/**
 * src/cli/serve-workers.ts: `serve --workers N` prepares the database once, then N worker processes
 * serve one port; a worker that dies is replaced; SIGTERM stops them all and the primary exits 0.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServeProcess, type ServeProcess } from '../../helpers/serve-process.js';

let dir: string;
let server: ServeProcess | undefined;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-workers-'));
});
afterAll(() => {
  if (server !== undefined && server.child.exitCode === null) server.child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The process ids of a process's children. */
function children(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).split('\n').map((l) => Number(l.trim())).filter((n) => n > 0);
  } catch {
    return [];
  }
}

async function waitFor(predicate: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('three workers on one port and one database; a killed worker is replaced; SIGTERM stops all, exit 0', async () => {
  let err = '';
  server = await startServeProcess(['--workers', '3'], path.join(dir, 'db.sqlite'));
  const primary = server.child.pid as number;
  expect(server.banner).toMatch(/^ecn-odata serving http:\/\/127\.0\.0\.1:\d+\/api\/v2\.0\/ \(database .*db\.sqlite, 3 workers\)$/m);
  server.child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const workers = children(primary);
  expect(workers).toHaveLength(3);
  const get = async (): Promise<number> => (await fetch(`${server!.url}/companies`, { headers: { authorization: `Bearer ${server!.token}` } })).status;
  expect(await Promise.all(Array.from({ length: 12 }, get))).toEqual(Array(12).fill(200));
  process.kill(workers[0] as number, 'SIGKILL');
  await waitFor(() => children(primary).length === 3 && !children(primary).includes(workers[0] as number), 'a replacement worker');
  await waitFor(() => err.includes(`worker ${workers[0]} exited (SIGKILL); starting another.`), 'the restart line');
  expect(await Promise.all(Array.from({ length: 12 }, get))).toEqual(Array(12).fill(200));
  const exited = new Promise<number | null>((resolve) => server!.child.once('exit', (code) => resolve(code)));
  server.child.kill('SIGTERM');
  expect(await exited).toBe(0);
  await waitFor(() => children(primary).length === 0, 'the workers to stop', 5_000);
  for (const w of [...workers.slice(1)]) expect(() => process.kill(w, 0)).toThrow();
});
