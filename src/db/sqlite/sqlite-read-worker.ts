/**
 * A read thread (db/sqlite/sqlite-read-pool.ts): its own read-only connection to the service's SQLite file, the
 * dialect's functions, and `odata_live()`, which fails the running statement once the job's deadline
 * has passed. Statements sent here are compiled `cancellable` (sql/compile.ts): the check is the first
 * condition of every SELECT, so a runaway lambda or scan ends within a few hundred rows of its deadline.
 * A job's statements run in one read transaction: they see one snapshot. A job holds one read, or the
 * reads of a batch's GETs (db/sqlite/sqlite-read-executor.ts runTogether), each of which may fail on its own.
 */
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { registerSqliteFunctions } from './sqlite-functions.js';
import { runSteps, type ReadStep, type StepConnection, type StepResult } from '../read-steps.js';
import { ODataError } from '../../errors/odata-error.js';
import type { CompiledQuery } from '../../sql/compile.js';

/** A job from the pool: the steps of one read or more, run in one read transaction. */
export interface WorkerJob {
  readonly id: number;
  readonly reads: readonly (readonly ReadStep[])[];
  /** Epoch ms after which the statements fail. */
  readonly deadline: number;
}

/** An error as it crosses to the event loop's thread (an ODataError keeps its status and code). */
export interface WorkerError {
  readonly status?: number;
  readonly code?: string;
  readonly message: string;
  readonly target?: string;
}

/** How one read of a job ended. */
export type WorkerOutcome = { readonly results: readonly StepResult[] } | { readonly error: WorkerError };

/** What the thread answers. */
export type WorkerReply =
  | { readonly id: number; readonly outcomes: readonly WorkerOutcome[] }
  | { readonly id: number; readonly cancelled: true }
  | { readonly id: number; readonly error: WorkerError };

function workerError(e: unknown): WorkerError {
  if (e instanceof ODataError) return { status: e.status, code: e.code, message: e.message, target: e.target };
  return { message: e instanceof Error ? e.message : String(e) };
}

/** A large page as bytes in a transferred buffer: no copy on the event loop's thread. */
function transferable(r: StepResult, transfer: ArrayBuffer[]): StepResult {
  if (r.kind !== 'page' || typeof r.entities !== 'string' || r.entities.length < 65536) return r;
  const bytes = Buffer.from(r.entities, 'utf8');
  const own = bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length ? bytes : Buffer.from(bytes);
  transfer.push(own.buffer as ArrayBuffer);
  return { ...r, entities: new Uint8Array(own.buffer, 0, own.length) };
}

class DeadlinePassed extends Error {}

function serve(file: string): void {
  const port = parentPort;
  if (port === null) throw new Error('sqlite-read-worker.js runs as a worker thread');
  const conn = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  conn.pragma('busy_timeout = 5000');
  conn.pragma('case_sensitive_like = ON');
  registerSqliteFunctions(conn);
  let deadline = Infinity;
  let calls = 0;
  conn.function('odata_live', { deterministic: false }, () => {
    // The clock is read every 256 rows: a few µs late at worst, and no syscall per row.
    if ((++calls & 255) === 0 && Date.now() > deadline) throw new DeadlinePassed('deadline passed');
    return 1;
  });
  const cache = new Map<string, BetterSqlite3.Statement>();
  const rawCache = new Map<string, BetterSqlite3.Statement>();
  const prepare = (sql: string, raw: boolean): BetterSqlite3.Statement => {
    const c = raw ? rawCache : cache;
    let stmt = c.get(sql);
    if (stmt === undefined) {
      stmt = conn.prepare(sql);
      if (raw) stmt.raw(true);
      if (c.size > 500) c.clear();
      c.set(sql, stmt);
    }
    return stmt;
  };
  const connection: StepConnection = {
    get: (q: CompiledQuery) => prepare(q.sql, false).get(...q.params) as Record<string, unknown> | undefined,
    iterateRows: (q: CompiledQuery) => prepare(q.sql, true).iterate(...q.params) as IterableIterator<unknown[]>,
    iterate: (q: CompiledQuery) => prepare(q.sql, false).iterate(...q.params) as IterableIterator<Record<string, unknown>>,
  };
  port.on('message', (job: WorkerJob) => {
    deadline = job.deadline;
    calls = 0;
    let reply: WorkerReply;
    const transfer: ArrayBuffer[] = [];
    try {
      conn.exec('BEGIN');
      try {
        const outcomes = job.reads.map((steps): WorkerOutcome => {
          try {
            return { results: runSteps(connection, steps).map((r) => transferable(r, transfer)) };
          } catch (e) {
            if (e instanceof DeadlinePassed) throw e;
            return { error: workerError(e) };
          }
        });
        reply = { id: job.id, outcomes };
      } finally {
        if (conn.inTransaction) conn.exec('COMMIT');
      }
    } catch (e) {
      transfer.length = 0;
      reply = e instanceof DeadlinePassed ? { id: job.id, cancelled: true } : { id: job.id, error: workerError(e) };
    }
    deadline = Infinity;
    port.postMessage(reply, transfer);
  });
}

serve((workerData as { file: string }).file);
