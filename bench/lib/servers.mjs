// Starting, probing and stopping the servers a bench runs (each stopped by its own pid), and the
// peak-memory readings of /proc.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { REPO, WORK } from './work-folder.mjs';

const started = new Set();

/** A free loopback TCP port. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts `node args...` in `cwd` with output to `logFile`; the child is stopped by stopAll(). */
export function startNode(name, args, { cwd, logFile, env = {}, nodeFlags = [] }) {
  const out = fs.openSync(logFile, 'w');
  const child = spawn(process.execPath, [...nodeFlags, ...args], { cwd, stdio: ['ignore', out, out], env: { ...process.env, ...env } });
  fs.closeSync(out);
  const proc = { name, child, pid: child.pid, logFile, exited: false, code: null };
  child.on('exit', (code, signal) => {
    proc.exited = true;
    proc.code = code ?? signal;
  });
  started.add(proc);
  return proc;
}

/** Waits until `url` answers (any HTTP status) or the process dies; throws after `ms`. */
export async function waitHttp(proc, url, ms = 60_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (proc.exited) throw new Error(`${proc.name} exited (${proc.code}) before answering; log ${proc.logFile}:\n${tail(proc.logFile)}`);
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await r.arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`${proc.name} did not answer ${url} within ${ms / 1000} s; log ${proc.logFile}:\n${tail(proc.logFile)}`);
}

function tail(file) {
  try {
    return fs.readFileSync(file, 'utf8').slice(-1500);
  } catch {
    return '';
  }
}

/** Stops one process (SIGTERM, then SIGKILL after 5 s) and waits for it. */
export async function stop(proc) {
  started.delete(proc);
  if (proc.exited) return;
  const gone = new Promise((r) => proc.child.once('exit', r));
  proc.child.kill('SIGTERM');
  const t = setTimeout(() => proc.child.kill('SIGKILL'), 5000);
  await gone;
  clearTimeout(t);
}

/** Stops every process this bench started. */
export async function stopAll() {
  await Promise.all([...started].map(stop));
}

/** Kills what is left synchronously (on exit paths that cannot await). */
export function killAllNow() {
  for (const p of started) if (!p.exited) p.child.kill('SIGKILL');
}

/** VmRSS and VmHWM (peak RSS) of a process in MiB, or null when it is gone. */
export function memoryMiB(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number((new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s) ?? [])[1]) / 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return null;
  }
}

const CLI = path.join(REPO, 'dist', 'src', 'cli', 'main.js');

const cli = (argv) => spawnSync(process.execPath, [CLI, ...argv], { encoding: 'utf8', cwd: REPO });

/**
 * A bearer token for the bench user from our CLI when it has a `token` command: the user is added
 * (`users add --user BENCH --default-company <company>`), granted the read and write permission sets
 * the scenarios need in the bench company (`grant`), and `token --user BENCH --db FILE` prints the
 * token. undefined when the CLI has no `token` command (no authentication: no header is sent).
 */
export function oursToken(dbFile, company, user = 'BENCH') {
  const help = cli(['--help']);
  const commands = `${help.stdout}${help.stderr}`;
  const has = (name) => new RegExp(`^\\s+${name}\\b`, 'm').test(commands);
  if (!has('token')) return undefined;
  const run = (argv) => {
    const r = cli([...argv, '--db', dbFile]);
    if (r.status !== 0) throw new Error(`ecn-odata ${argv.join(' ')} failed (exit ${r.status}): ${(r.stderr || r.stdout).trim()}`);
    return r.stdout;
  };
  if (has('users')) run(['users', 'add', '--user', user, '--default-company', company]);
  if (has('grant')) run(['grant', '--user', user, '--company', company, '--set', 'ECN-READ', '--set', 'ECN-WRITE', '--set', 'TASK-READ', '--set', 'TASK-WRITE']);
  const token = run(['token', '--user', user]).trim().split('\n').pop()?.trim();
  if (!token) throw new Error('ecn-odata token printed no token');
  return token;
}

/**
 * V8 flags our server runs with in the benches, by engine: $BENCH_OURS_NODE_FLAGS for both, else on
 * SQLite those of `npm start` (the SQLite demo) and on PostgreSQL those of the `ecn-odata` command (its
 * #! line). With V8's defaults on this 24 GiB machine the young generation grows to 3 x 16 MiB and
 * promoted garbage piles up to ~60 MiB before the first full collection, for a live heap of ~20-40 MiB:
 * peak RSS ~160 MiB. Smaller semi-spaces and an old-space limit far above the live heap keep it near
 * 105-115 MiB at about the same CPU per request (measured; --optimize-for-size gave the same memory for
 * 20-40 % more CPU). The semi-space differs by engine: on PostgreSQL the rows of 16 requests in flight
 * outlive a 4 MiB semi-space (they wait for the database), so every scavenge copied and promoted them
 * (GC a third of the busy time; $expand 480-530 -> 640-820 req/s with 8 MiB, page of 100 1,460 ->
 * 1,880); on SQLite a request's rows die within the request, and 4 MiB is as fast as 8 (A/B of
 * 2026-11-29: GET by key 50-53 against 52-56 µs a request, $expand 611-645 against 628-661) for a peak
 * RSS 13 MiB lower (113 against 126 MiB over the bench's scenarios).
 */
const FLAGS = {
  sqlite: '--max-semi-space-size=4 --max-old-space-size=256',
  postgres: '--max-semi-space-size=8 --max-old-space-size=256',
};

/** The V8 flags of our server on the database `dbFile` (a file, or a postgres:// URL). */
export function oursNodeFlags(dbFile) {
  const engine = /^postgres(ql)?:\/\//.test(dbFile) ? 'postgres' : 'sqlite';
  return (process.env.BENCH_OURS_NODE_FLAGS ?? FLAGS[engine]).split(' ').filter(Boolean);
}

/**
 * The fair-use limits the bench's user runs with: one user sends every request of a run (tens of
 * thousands a minute, 16 at once and more with the harness's warm-up), far past the defaults that
 * protect a shared service from one user; its share of the read threads' queue is the whole queue
 * (maxQueuedReads still bounds it). Raised in the bench's own copy of the model.
 */
export const BENCH_FAIR_USE = { userRequestsPer5Min: 1_000_000_000, userConcurrentRequests: 1000, userQueuedRequests: 100_000, userQueuedReads: 64 };

/** The model folder ours serves in the benches: metadata/ with BENCH_FAIR_USE in its service.json limits. */
export function benchMetadata() {
  const dir = path.join(WORK, 'metadata');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(path.join(REPO, 'metadata'), dir, { recursive: true });
  const file = path.join(dir, 'service.json');
  const service = JSON.parse(fs.readFileSync(file, 'utf8'));
  service.limits = { ...service.limits, ...BENCH_FAIR_USE };
  fs.writeFileSync(file, JSON.stringify(service, null, 2));
  return dir;
}

let announced = false;

/** Starts our service on a free loopback port, on the bench's model (benchMetadata). */
export async function startOurs(dbFile, logFile, { nodeFlags = [], env = {}, args = [], name = 'ours' } = {}) {
  const port = await freePort();
  const metadata = benchMetadata();
  if (!announced) {
    announced = true;
    console.log(`ours: the bench user's fair-use limits are raised in ${path.relative(REPO, metadata)}/service.json: ${JSON.stringify(BENCH_FAIR_USE)}`);
  }
  const proc = startNode(name, [CLI, 'serve', '--db', dbFile, '--metadata', metadata, '--port', String(port), '--host', '127.0.0.1', '--log-level', 'warn', ...args], { cwd: REPO, logFile, nodeFlags: [...oursNodeFlags(dbFile), ...nodeFlags], env });
  proc.port = port;
  proc.root = `http://127.0.0.1:${port}/api/v2.0`;
  await waitHttp(proc, `${proc.root}/$metadata`);
  return proc;
}
