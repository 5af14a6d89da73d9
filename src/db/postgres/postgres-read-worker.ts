/**
 * A PostgreSQL read thread (postgres-read-threads.ts, db/read-thread-pool.ts): pools of its own to the
 * primary and each replica, on which it runs the reads of its jobs as the event loop would
 * (postgres-reads.ts readOn, readTogetherOn), a few at once, each statement bounded by the connections'
 * statement_timeout. It parses the rows and joins the page here, and sends a large page as bytes in a
 * transferred buffer, so the event loop's thread only writes it out.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openPostgres, type PostgresDatabase } from './postgres-database.js';
import { readOn, readTogetherOn } from './postgres-reads.js';
import { sqlState } from './postgres-errors.js';
import type { ReadOutcome, StepResult } from '../read-steps.js';
import { transferable, workerError, type WorkerClose, type WorkerJob, type WorkerOutcome, type WorkerReply } from '../read-thread-protocol.js';

/** What the pool gives a thread. */
export interface PostgresWorkerData {
  /** The primary's URL, then each replica's. */
  readonly urls: readonly string[];
  /** Connections of each of the thread's pools (the jobs it runs at once). */
  readonly connections: number;
  /** limits.requestTimeoutMs, every statement's statement_timeout. */
  readonly timeoutMs: number;
}

/** true for an error of a statement that ran out of its time (statement_timeout): the deadline's 503. */
function timedOut(e: unknown): boolean {
  return sqlState(e) === '57014';
}

/** One read's outcome (readOn), as readTogetherOn gives each. */
async function outcomeOf(read: Promise<StepResult[]>): Promise<ReadOutcome> {
  try {
    return { ok: true, results: await read };
  } catch (error) {
    return { ok: false, error };
  }
}

function serve(data: PostgresWorkerData): void {
  const port = parentPort;
  if (port === null) throw new Error('postgres-read-worker.js runs as a worker thread');
  const databases = new Map<number, PostgresDatabase>();
  const database = (target: number): PostgresDatabase => {
    let db = databases.get(target);
    if (db === undefined) {
      const url = data.urls[target];
      if (url === undefined) throw new Error(`read thread: no database ${target}`);
      db = openPostgres(url, { statementTimeoutMs: data.timeoutMs, readConnections: data.connections });
      databases.set(target, db);
    }
    return db;
  };
  const outcome = (o: ReadOutcome, transfer: ArrayBuffer[]): WorkerOutcome => {
    if (o.ok) return { results: o.results.map((r) => transferable(r, transfer)) };
    return { error: workerError(o.error) };
  };
  const run = async (job: WorkerJob): Promise<void> => {
    const transfer: ArrayBuffer[] = [];
    let reply: WorkerReply;
    try {
      const db = database(job.target);
      const [one] = job.reads;
      // One read runs as on the event loop (one statement on its own); several see one snapshot.
      const outcomes = job.reads.length === 1 && one !== undefined ? [await outcomeOf(readOn(db, one))] : await readTogetherOn(db, job.reads);
      reply = { id: job.id, outcomes: outcomes.map((o) => outcome(o, transfer)) };
    } catch (e) {
      transfer.length = 0;
      reply = timedOut(e) ? { id: job.id, cancelled: true } : { id: job.id, error: workerError(e) };
    }
    port.postMessage(reply, transfer);
  };
  port.on('message', (message: WorkerJob | WorkerClose) => {
    if ('close' in message) {
      void Promise.allSettled([...databases.values()].map((db) => db.close())).then(() => port.close());
      return;
    }
    void run(message);
  });
}

serve(workerData as PostgresWorkerData);
