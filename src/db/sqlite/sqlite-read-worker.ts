/**
 * A read thread (db/sqlite/sqlite-read-pool.ts, db/read-thread-pool.ts): its own read-only connection to the service's SQLite file, the
 * dialect's functions, and `odata_live()`, which fails the running statement once the job's deadline
 * has passed. Statements sent here are compiled `cancellable` (sql/compile.ts): the check is the first
 * condition of every SELECT, so a runaway lambda or scan ends within a few hundred rows of its deadline.
 * A job's statements run in one read transaction: they see one snapshot. A job holds one read, or the
 * reads of a batch's GETs (db/sqlite/sqlite-read-executor.ts runTogether), each of which may fail on its own.
 */
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { registerSqliteFunctions } from './sqlite-functions.js';
import { runSteps, type StepConnection } from '../read-steps.js';
import { DeadlinePassed, transferable, workerError, type WorkerClose, type WorkerJob, type WorkerOutcome, type WorkerReply } from '../read-thread-protocol.js';
import type { CompiledQuery } from '../../sql/compile.js';

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
    if ((++calls & 255) === 0 && Date.now() > deadline) throw new DeadlinePassed();
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
  port.on('message', (job: WorkerJob | WorkerClose) => {
    if ('close' in job) {
      conn.close();
      port.close();
      return;
    }
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
