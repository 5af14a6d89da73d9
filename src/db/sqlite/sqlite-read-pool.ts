/**
 * Read threads for SQLite (db/read-thread-pool.ts): better-sqlite3 runs a statement synchronously and
 * cannot be interrupted from outside, so a read whose work the cost model cannot bound runs on a thread
 * of its own with its own read-only connection (sqlite-read-worker.ts), one statement at a time, whose
 * `odata_live()` check ends the statement at the job's deadline.
 */
import type { Logger } from 'pino';
import { ReadThreadPool, workerScript } from '../read-thread-pool.js';

/** Settings of the pool. */
export interface ReadPoolOptions {
  readonly file: string;
  readonly threads: number;
  readonly maxQueued: number;
  /** Jobs one owner may have waiting; more is a 429 (limits.userQueuedReads). */
  readonly maxQueuedPerOwner?: number;
  readonly timeoutMs: number;
  /** How long a thread may overrun a deadline before it is replaced, ms. */
  readonly graceMs?: number;
}

/** A pool of read threads on one SQLite file. */
export class ReadPool extends ReadThreadPool {
  constructor(options: ReadPoolOptions, log: Logger) {
    const { file, ...rest } = options;
    super({ ...rest, script: workerScript(import.meta.url, 'sqlite-read-worker.js'), workerData: { file } }, log);
  }
}
