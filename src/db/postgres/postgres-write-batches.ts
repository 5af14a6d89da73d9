/**
 * Write transactions on PostgreSQL, batched per instance and taken in turns across instances.
 *
 * Why: the write path reads first and then writes (If-Match versions, the next line number, the
 * parent's row counters, unique and cycle checks), so its transactions are SERIALIZABLE. When many
 * clients write under one parent (the comments of one ECN bump its counter), nearly every transaction
 * loses a serialization conflict and runs again: measured with 16 clients, one row of a read-then-write
 * took 290 commits/s with 11,914 failed runs in 4 s, and the bench's PATCH and POST answered with a p99
 * of 440 ms. Taking turns before the snapshot is taken removes those conflicts: a transaction that
 * starts after the previous one committed sees its changes.
 *
 * How: the transactions that become ready while one batch runs form the next batch (up to `maxBatch`).
 * A batch holds the database's write turn: its transaction's first statement locks an empty table
 * (`_writeTurn`), so every instance's batches take turns. LOCK TABLE takes no snapshot, so the
 * transaction's snapshot is taken after the turn is given, and the lock ends with the transaction; BEGIN
 * and the lock go in one message, so the turn costs no round trip of its own. The batch runs its jobs
 * one after the other in one SERIALIZABLE transaction
 * (when one throws, the batch runs again with a savepoint per job, so that job is undone alone and gets
 * its error while the others commit), and shares one COMMIT, so the commit's WAL flush is paid once
 * per batch instead of once per write. The result is the same as running the jobs one after the other
 * in queue order, as SQLite's group commit does (db/group-commit.ts). The price: the writes of all
 * instances are serial (each statement of a batch is a round trip), about a thousand small writes a
 * second under one ECN on the bench machine; reads never wait for them.
 *
 * A batch that waits for the turn, or a job whose statement runs, past the connections'
 * statement_timeout (the request time limit) fails with a write's 503 (writeTimeoutError): a batch
 * stuck in one instance holds every instance's writes back for at most that long.
 *
 * SERIALIZABLE stays the safety net: a writer that does not take the turn (another program, a
 * statement outside a transaction) can still conflict; then the whole batch is rolled back and runs
 * again, a few times apart at random, before its jobs fail with the error (a 503 to retry).
 */
import { isPoolWait, isRetryable, sqlState } from './postgres-errors.js';
import { connectionEnded, driverConnect, driverQuery, PostgresSession, type PostgresDatabase } from './postgres-database.js';
import { ServiceUnavailableError } from '../../errors/odata-error.js';
import { limitSetting } from '../../edm/service-limits.js';
import { q } from './postgres-ddl.js';
import { WRITE_TURN_TABLE } from './postgres-framework-tables.js';

/**
 * The first message of a batch, a simple query of two statements: its transaction, and the write turn
 * (nothing else uses the table, so only batches wait for its lock).
 */
export const BEGIN_WRITE_TURN = `BEGIN ISOLATION LEVEL SERIALIZABLE; LOCK TABLE ${q(WRITE_TURN_TABLE)} IN EXCLUSIVE MODE`;

/** Runs of a batch that lost to another writer, at most. */
const MAX_ATTEMPTS = 25;

interface Job {
  readonly body: (session: PostgresSession) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** SQLSTATE of a statement ended by statement_timeout (the request time limit). */
const CANCELLED = '57014';

/**
 * A write's statement, its wait for the write turn or for a pooled connection ended by the request
 * time limit, said as a write's 503 (the read deadline's message would tell the client to narrow a query).
 */
export function writeTimeoutError(timeoutMs: number): ServiceUnavailableError {
  return new ServiceUnavailableError(
    `The change did not finish within ${timeoutMs} ms (${limitSetting('requestTimeoutMs')}): the database is busy with other writes. Nothing of it was stored; try again in a moment.`,
    Math.max(1, Math.ceil(timeoutMs / 1000)),
  );
}

/** Runs write transactions in batches that take turns (see the file comment). */
export class PostgresWriteBatches {
  private queue: Job[] = [];
  private scheduled = false;
  private running = false;

  /**
   * @param database the pool (a batch holds one of its connections)
   * @param timeoutMs the connections' statement_timeout (the request time limit), for the message of a write it ended
   * @param maxBatch the most jobs one COMMIT covers (bounds how long one batch holds the lock)
   */
  constructor(
    private readonly database: PostgresDatabase,
    private readonly timeoutMs: number,
    private readonly maxBatch = 32,
  ) {}

  /** Runs `body` in a transaction shared with the other bodies of its batch; settles after COMMIT. */
  run<T>(body: (session: PostgresSession) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ body, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running || this.queue.length === 0) return;
    this.scheduled = true;
    // setImmediate: after the I/O callbacks of this turn, so requests read in the same turn join.
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    this.running = true;
    const batch = this.queue.splice(0, this.maxBatch);
    try {
      const outcomes = await this.runWithReruns(batch);
      batch.forEach((job, i) => settle(job, outcomes[i] as Outcome));
    } catch (error) {
      for (const job of batch) job.reject(error);
    } finally {
      this.running = false;
      this.schedule();
    }
  }

  private async runWithReruns(batch: readonly Job[]): Promise<Outcome[]> {
    // A savepoint per job costs two round trips, as many as a PATCH's own statements, so a batch first runs
    // without them; only when one of its jobs throws is it rolled back and run again with a savepoint per job.
    let savepoints = false;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.runOnce(batch, savepoints);
      } catch (e) {
        if (e instanceof JobThrew) {
          savepoints = true;
          attempt--;
          continue;
        }
        if (!isRetryable(e) || attempt === MAX_ATTEMPTS) throw e;
        // Apart at random, longer each time (to 200 ms), so the writers that collided do not collide again.
        await pause(Math.random() * Math.min(200, 2 ** attempt));
      }
    }
  }

  /** `e`, or the write's 503 when it is the time limit ending a statement or a wait for a pooled connection. */
  private asWriteError(e: unknown): unknown {
    return sqlState(e) === CANCELLED || isPoolWait(e) ? writeTimeoutError(this.timeoutMs) : e;
  }

  /** One run of the batch in its write turn; throws (nothing committed) when the whole batch must run again or cannot commit. */
  private async runOnce(batch: readonly Job[], savepoints: boolean): Promise<Outcome[]> {
    const client = await driverConnect(this.database.pool).catch((e: unknown) => {
      throw this.asWriteError(e);
    });
    let broken: Error | undefined;
    try {
      return await this.inTransaction(new PostgresSession(client), batch, savepoints);
    } catch (e) {
      // A connection lost mid-protocol or ended by the server is not given back to others.
      if (connectionEnded(e) && !(e instanceof JobThrew)) broken = e;
      throw e;
    } finally {
      client.release(broken);
    }
  }

  private async inTransaction(s: PostgresSession, batch: readonly Job[], savepoints: boolean): Promise<Outcome[]> {
    try {
      // The other instances' batches may hold the turn past the time limit.
      await driverQuery(s.client, BEGIN_WRITE_TURN).catch((e: unknown) => {
        throw this.asWriteError(e);
      });
      const outcomes: Outcome[] = [];
      for (const job of batch) {
        if (savepoints) await s.exec('SAVEPOINT "job"');
        try {
          outcomes.push({ ok: true, value: await job.body(s) });
        } catch (error) {
          // Another writer changed what the batch read: the whole batch runs again.
          if (isRetryable(error)) throw error;
          // Without savepoints only a batch of one can undo a job alone (the whole transaction).
          if (!savepoints && batch.length > 1) throw new JobThrew();
          outcomes.push({ ok: false, error: this.asWriteError(error) });
          if (savepoints) await s.exec('ROLLBACK TO SAVEPOINT "job"');
        }
        if (savepoints) await s.exec('RELEASE SAVEPOINT "job"');
      }
      if (!outcomes.some((o) => o.ok)) {
        await s.exec('ROLLBACK');
        return outcomes;
      }
      // PostgreSQL ends a transaction a failed statement aborted with ROLLBACK, even when asked to COMMIT
      // (a job that caught that statement's error): then nothing of the batch was written.
      const end = await driverQuery(s.client, 'COMMIT');
      if (end.command !== 'COMMIT') throw new Error('the write transaction was rolled back at its end: one of its statements had failed');
      return outcomes;
    } catch (e) {
      // Also when the turn was not given (BEGIN ran; a simple query stops at its first failed statement).
      await s.exec('ROLLBACK').catch(() => undefined);
      throw e;
    }
  }
}

/** A job of a batch run without savepoints threw: the batch is rolled back and runs again with them. */
class JobThrew extends Error {}

function settle(job: Job, outcome: Outcome): void {
  if (outcome.ok) job.resolve(outcome.value);
  else job.reject(outcome.error);
}
