/**
 * A read thread (db/read-pool.ts): its own read-only connection to the service's SQLite file, the
 * dialect's functions, and `odata_live()`, which fails the running statement once the job's deadline
 * has passed. Statements sent here are compiled `cancellable` (sql/compile.ts): the check is the first
 * condition of every SELECT, so a runaway lambda or scan ends within a few hundred rows of its deadline.
 * A job's statements run in one read transaction: they see one snapshot.
 */
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { registerSqliteFunctions } from './sqlite-functions.js';
import { runSteps, type ReadStep, type StepConnection, type StepResult } from './read-steps.js';
import { ODataError } from '../errors/odata-error.js';
import type { CompiledQuery } from '../sql/compile.js';

/** A job from the pool. */
export interface WorkerJob {
  readonly id: number;
  readonly steps: readonly ReadStep[];
  /** Epoch ms after which the statements fail. */
  readonly deadline: number;
}

/** What the thread answers. */
export type WorkerReply =
  | { readonly id: number; readonly results: readonly StepResult[] }
  | { readonly id: number; readonly cancelled: true }
  | { readonly id: number; readonly error: { readonly status?: number; readonly code?: string; readonly message: string; readonly target?: string } };

class DeadlinePassed extends Error {}

function serve(file: string): void {
  const port = parentPort;
  if (port === null) throw new Error('read-worker.js runs as a worker thread');
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
    try {
      conn.exec('BEGIN');
      try {
        reply = { id: job.id, results: runSteps(connection, job.steps) };
      } finally {
        if (conn.inTransaction) conn.exec('COMMIT');
      }
    } catch (e) {
      if (e instanceof DeadlinePassed) reply = { id: job.id, cancelled: true };
      else if (e instanceof ODataError) reply = { id: job.id, error: { status: e.status, code: e.code, message: e.message, target: e.target } };
      else reply = { id: job.id, error: { message: e instanceof Error ? e.message : String(e) } };
    }
    deadline = Infinity;
    // A large page goes back as bytes in a transferred buffer: no copy on the event loop's thread.
    const transfer: ArrayBuffer[] = [];
    if ('results' in reply) {
      reply = {
        id: reply.id,
        results: reply.results.map((r) => {
          if (r.kind !== 'page' || typeof r.entities !== 'string' || r.entities.length < 65536) return r;
          const bytes = Buffer.from(r.entities, 'utf8');
          const own = bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length ? bytes : Buffer.from(bytes);
          transfer.push(own.buffer as ArrayBuffer);
          return { ...r, entities: new Uint8Array(own.buffer, 0, own.length) };
        }),
      };
    }
    port.postMessage(reply, transfer);
  });
}

serve((workerData as { file: string }).file);
