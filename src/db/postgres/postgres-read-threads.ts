/**
 * PostgreSQL's read threads (db/read-thread-pool.ts, postgres-read-worker.ts): the heavy reads
 * (postgres-reads.ts isHeavy) run there, on connections of the threads' own, so that parsing their
 * rows and joining their pages, which took most of the event loop's time under large reads, happens
 * beside the event loop instead of on it. The server runs the statements either way.
 *
 * The threads' connections count against `serve --db-connections` N: of its N - 1 read connections, each
 * of the `limits.readWorkers` threads has two (at most half of them in all), and the event loop's pool
 * the rest, so an instance opens no more connections than before. With one read
 * connection (`--db-connections 2`), or `limits.readWorkers` 0, there are no threads and heavy reads
 * take turns on the event loop's pool (db/heavy-read-gate.ts).
 */
import type { Logger } from 'pino';
import type { EngineLimits } from '../engine.js';
import { ReadThreadPool, workerScript } from '../read-thread-pool.js';
import type { WorkerError } from '../read-thread-protocol.js';
import { markDriverError } from './postgres-errors.js';
import type { PostgresWorkerData } from './postgres-read-worker.js';

/** How an instance's read connections are shared between the event loop's pool and the heavy reads. */
export interface ReadConnections {
  /** The event loop's pool of reads. */
  readonly pool: number;
  /** Heavy reads at once: the threads' connections to each server (or the gate's places on the pool). */
  readonly heavy: number;
  /** Read threads (0: heavy reads on the event loop's pool, through the gate). */
  readonly threads: number;
}

const HEAVY_PER_THREAD = 2;

/** The share of `connections` (`--db-connections`, the write connection among them; see the file comment). */
export function readConnections(connections: number, readWorkers: number): ReadConnections {
  const reads = Math.max(1, connections - 1);
  const half = Math.max(1, Math.floor(reads / 2));
  // Two heavy reads per thread at once, and the lambdas among them one per thread (postgres-reads.ts
  // HeavyReads.lambdas): a heavy query takes a core of the server as well as the thread's time, and on a
  // small server more of them at once starve the cheap ones of CPU.
  const threads = reads >= 2 && readWorkers > 0 ? Math.min(readWorkers, half) : 0;
  const heavy = Math.min(half, threads * HEAVY_PER_THREAD);
  return { pool: reads - heavy, heavy: threads === 0 ? half : heavy, threads };
}

/** A driver's error from a thread as node-postgres's own, so postgres-errors.ts reads it as it reads one of this thread. */
function driverError(e: Extract<WorkerError, { kind: 'driver' }>): Error {
  const error = Object.assign(new Error(e.message), e.code === undefined ? {} : { code: e.code }, e.severity === undefined ? {} : { severity: e.severity });
  markDriverError(error);
  return error;
}

/** The read threads of an engine on `urls` (the primary's, then each replica's); started on first use. */
export function postgresReadThreads(urls: readonly string[], share: ReadConnections, limits: EngineLimits, log: Logger): ReadThreadPool {
  const workerData: PostgresWorkerData = { urls, connections: Math.max(1, Math.floor(share.heavy / share.threads)), timeoutMs: limits.requestTimeoutMs };
  return new ReadThreadPool(
    {
      script: workerScript(import.meta.url, 'postgres-read-worker.js'),
      workerData,
      threads: share.threads,
      jobsPerThread: workerData.connections,
      maxQueued: limits.maxQueuedReads,
      maxQueuedPerOwner: limits.userQueuedReads,
      timeoutMs: limits.requestTimeoutMs,
      // A job waits at most the request time for its turn, then each statement may take it, as a heavy
      // read on the event loop's pool did: a batch's thirty lambdas are not held to one deadline.
      runningDeadline: false,
      driverError,
    },
    log,
  );
}
