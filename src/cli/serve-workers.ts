/**
 * `serve --workers N` (conventions §10): the primary process prepares the database once (migration,
 * event definitions, the demo data and token), then forks N worker processes (node:cluster) that each
 * run the whole service and share the listening port; instances coordinate only through the database
 * (row versions, notification claims, write locks), so a worker is the same as a separate `serve`.
 * The primary prints the banner when every worker listens, starts a new worker for one that dies, and
 * on SIGTERM or SIGINT stops them all and exits 0. A worker that cannot start tells the primary its one
 * line, which the primary prints once (exit 1) after stopping the others.
 */
import cluster, { type Worker } from 'node:cluster';
import { StartupError } from './startup-error.js';

/** What a worker tells the primary. */
export type WorkerMessage = { readonly kind: 'listening'; readonly port: number } | { readonly kind: 'failed'; readonly message: string };

/** The most workers `--workers` takes. */
export const MAX_WORKERS = 64;

/** A replacement for a worker that died sooner than this after it started waits this long first, ms (no restart storm). */
const RESTART_PAUSE_MS = 1_000;

/** true in a worker forked by `serve --workers`. */
export function isServeWorker(): boolean {
  return cluster.isWorker;
}

/** A worker tells the primary (no-op outside a worker). */
export function tellPrimary(message: WorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!cluster.isWorker || process.send === undefined) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

/**
 * Forks `count` workers running `serve` with `args` and resolves with the port they listen on once
 * all of them do; rejects with the first worker's StartupError (every worker stopped). After that,
 * keeps them running until SIGTERM/SIGINT (see the file comment), when each worker gets
 * `stopGraceMs` to answer its requests in progress and exit before it is killed.
 */
export async function runWorkers(count: number, args: readonly string[], stopGraceMs: number): Promise<number> {
  cluster.setupPrimary({ args: ['serve', ...args] });
  const started = new Map<Worker, number>();
  let stopping = false;
  const fork = (): Worker => {
    const worker = cluster.fork();
    started.set(worker, Date.now());
    return worker;
  };
  const port = await new Promise<number>((resolve, reject) => {
    let listening = 0;
    let failed = false;
    const fail = (message: string): void => {
      if (failed) return;
      failed = true;
      stopping = true;
      for (const w of started.keys()) w.process.kill('SIGTERM');
      reject(new StartupError(message));
    };
    for (let i = 0; i < count; i++) {
      const worker = fork();
      worker.on('message', (m: WorkerMessage) => {
        if (m.kind === 'failed') fail(m.message);
        else if (++listening === count) resolve(m.port);
      });
      worker.on('exit', (code, signal) => {
        if (listening < count) fail(`ecn-odata serve: a worker exited (${signal ?? `code ${String(code)}`}) before it listened.`);
      });
    }
  });
  cluster.on('exit', (worker, code, signal) => {
    const since = started.get(worker) ?? 0;
    started.delete(worker);
    if (stopping) return;
    console.error(`ecn-odata serve: worker ${worker.process.pid ?? '?'} exited (${signal ?? `code ${String(code)}`}); starting another.`);
    setTimeout(() => {
      if (!stopping) fork();
    }, Date.now() - since < RESTART_PAUSE_MS ? RESTART_PAUSE_MS : 0);
  });
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    const alive = [...started.keys()];
    for (const w of alive) w.process.kill('SIGTERM');
    const killer = setTimeout(() => {
      for (const w of alive) if (w.process.exitCode === null) w.process.kill('SIGKILL');
    }, stopGraceMs);
    void Promise.all(alive.map((w) => (w.process.exitCode !== null || w.process.signalCode !== null ? undefined : new Promise((resolve) => w.process.once('exit', resolve))))).then(() => {
      clearTimeout(killer);
      process.exit(0);
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return port;
}
