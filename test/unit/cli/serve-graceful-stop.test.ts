/**
 * src/http/graceful-stop.ts through `serve`: on SIGTERM the server stops accepting connections and
 * closes idle ones, answers the request in progress (with `Connection: close`) before the database
 * closes, and exits 0. Before, the process closed the database under that request and exited: its
 * client lost the connection (on PostgreSQL some such requests answered 500).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startServeProcess } from '../../helpers/serve-process.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-graceful-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A GET on a new connection: its status, or the error code when the connection fails. */
function getOnce(url: string, token: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.get(url, { headers: { Authorization: `Bearer ${token}` }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

test('SIGTERM: the request in progress is answered with Connection: close and stored, idle and new connections are refused, exit 0', async () => {
  const db = path.join(dir, 'db.sqlite');
  const server = await startServeProcess([], db);
  const list = (await (await fetch(`${server.url}/engChangeNotices?$top=1&$select=id`, { headers: { Authorization: `Bearer ${server.token}` } })).json()) as { value: { id: string }[] };
  const [ecn] = list.value;
  const target = new URL(`${server.url}/engChangeNotices(${ecn?.id})/engChangeNoticeComments`);

  // An idle keep-alive connection, which the stop closes.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const idleClosed = new Promise<void>((resolve) => {
    const req = http.get(`${server.url}/engChangeNotices?$top=1`, { agent, headers: { Authorization: `Bearer ${server.token}` } }, (res) => res.resume());
    req.once('socket', (socket) => socket.once('close', () => resolve()));
  });
  await sleep(100);

  // A POST whose body is still arriving when SIGTERM comes.
  const body = JSON.stringify({ comment: 'sent across a graceful stop' });
  const answered = new Promise<{ status: number; connection: string | undefined; text: string }>((resolve, reject) => {
    const req = http.request(target, { method: 'POST', agent: false, headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, text }));
    });
    req.on('error', reject);
    req.write(body.slice(0, 10));
    void sleep(300).then(() => {
      server.child.kill('SIGTERM');
      return sleep(500);
    }).then(async () => {
      expect(await getOnce(`${server.url}/engChangeNotices?$top=1`, server.token)).toBe('ECONNREFUSED');
      req.end(body.slice(10));
    });
  });
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));

  const r = await answered;
  expect([r.status, r.connection]).toEqual([201, 'close']);
  expect(JSON.parse(r.text).comment).toBe('sent across a graceful stop');
  await idleClosed;
  expect(await exited).toBe(0);
  agent.destroy();
  const rows = new Database(db, { readonly: true }).prepare('SELECT count(*) AS n FROM "engChangeNoticeComments" WHERE "comment" = ?').get('sent across a graceful stop') as { n: number };
  expect(rows.n).toBe(1);
});
