/**
 * Starts the compiled `ecn-odata serve --seed demo` as a child process on a free port and waits for the
 * service root URL and the ADMIN token it prints.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The repository root. */
export const REPO_ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
/** The compiled command (npm test builds it first). */
export const BIN = path.join(REPO_ROOT, 'dist', 'src', 'cli', 'main.js');

/** A running demo server. */
export interface ServeProcess {
  readonly url: string;
  readonly token: string;
  readonly child: ChildProcess;
  /** What it printed up to its token (the banner). */
  readonly banner: string;
  stop(): void;
}

/** The children started here that have not exited. */
const running = new Set<ChildProcess>();

// A test that fails before it stops its servers, or whose servers finish starting after it failed (one of
// several started together exited), would leave them running, and their pipes would keep jest from exiting.
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
});

/** The node flags `npm start` and the ecn-odata command run the service with (package.json, the bin's #! line). */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=8', '--max-old-space-size=256'];

/**
 * Spawns `serve --seed demo` on a fresh database (or on `dbFile`); resolves once it prints its URL and
 * token. `nodeFlags` go to node before the command (SERVICE_NODE_FLAGS to run it as npm start does).
 */
export async function startServeProcess(extraArgs: readonly string[] = [], dbFile?: string, nodeFlags: readonly string[] = []): Promise<ServeProcess> {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run 'npm run build' (npm test does it first).`);
  const db = dbFile ?? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-serve-')), 'demo.sqlite');
  const child = spawn(process.execPath, [...nodeFlags, BIN, 'serve', '--port', '0', '--db', db, '--seed', 'demo', '--log-level', 'silent', ...extraArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.on('exit', () => running.delete(child));
  let banner = '';
  const [url, token] = await new Promise<[string, string]>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /serving (http:\/\/\S+\/api\/v2\.0)\/[\s\S]*token for ADMIN[^\n]*\n\s*(ecn_\S+)/.exec(out);
      if (m?.[1] && m[2]) {
        banner = out;
        resolve([m[1], m[2]]);
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${String(code)}: ${out}`)));
  });
  return { url, token, child, banner, stop: () => child.kill('SIGTERM') };
}

/** A call of a running server's API as its ADMIN (JSON body, If-Match *), its status and parsed body. */
export async function serveApi(server: ServeProcess, method: string, url: string, body?: unknown): Promise<{ status: number; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', 'if-match': '*' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? undefined : JSON.parse(text) };
}
