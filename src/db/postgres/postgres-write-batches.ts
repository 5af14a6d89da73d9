/**
 * Write transactions on PostgreSQL, batched per instance and taken in turns across instances.
 *
 * Why: the write path reads first and then writes (If-Match versions, the next line number, the
 * parent's row counters, unique and cycle checks), so its transactions are SERIALIZABLE. When many
 * clients write under one parent (the comments of one ECN bump its counter), nearly every transaction
 * loses a serialization conflict and runs again: with 16 clients writing one row, about ten runs
 * failed for each that committed. Taking turns before the snapshot is taken removes those conflicts:
 * a transaction that starts after the previous one committed sees its changes.
 *
 * How: the transactions that become ready while one batch runs form the next batch (up to `maxBatch`),
 * and those that become ready while a pipelined batch still waits for its turn join it (`together`):
 * with two instances writing, a batch waits for the other's about as long as it holds the turn, and
 * the jobs of that wait used to form a batch of their own, with its own wait.
 * A batch holds the database's write turn: its transaction's first statement locks an empty table
 * (`_writeTurn`), so every instance's batches take turns. LOCK TABLE takes no snapshot, so the
 * transaction's snapshot is taken after the turn is given, and the lock ends with the transaction; BEGIN
 * and the lock go in one message, so the turn costs no round trip of its own. The batch runs its jobs
 * one after the other in one SERIALIZABLE transaction
 * (when one throws, the batch runs again with a savepoint per job, so that job is undone alone and gets
 * its error while the others commit), and shares one COMMIT, so the commit's WAL flush is paid once
 * per batch instead of once per write. The result is the same as running the jobs one after the other
 * in queue order, as SQLite's group commit does (db/sqlite/sqlite-group-commit.ts). The price: the writes of all
 * instances are serial; reads never wait for them.
 *
 * A batch that waits for the turn, or a job whose statement runs, past the connections'
 * statement_timeout (the request time limit) fails with a write's 503 (writeTimeoutError), and so does
 * a batch whose job stalls between its statements that long (the server ends the session:
 * idle_in_transaction_session_timeout, postgres-database.ts): a batch stuck in one instance holds
 * every instance's writes back for at most that long. A command's outer transaction is exempt.
 *
 * Pipelining: the batches have a connection of their own in node-postgres's pipeline mode (a statement
 * is sent without waiting for the answers to those before it; reads never wait for a batch's
 * connection, nor the batch for theirs), and most writes are one statement (a comment's INSERT, a
 * PATCH's UPDATE ... RETURNING). A job is known as one statement when the jobs that began with the
 * same statement text before it were that one statement (the last six in a row, once one was not;
 * one-statement-jobs.ts); then the next job starts as soon as that statement is sent. The server runs statements
 * in the order sent, so the result is that of running the jobs one after the other, without a round
 * trip of waiting between them (BEGIN and the turn go the same way, ahead of the first job's statement). A job known as one
 * statement that sends a second one (a PATCH whose UPDATE found nothing reads the row for its 404 or
 * 412) after a later job sent one would break that order: the batch is rolled back and runs again
 * with each job waiting for the one before, and its statement is no longer known as one (a job whose
 * statement failed teaches nothing: the ones behind it in the batch fail too). A job of
 * several statements (a read, then a write) waits for the one before and is waited for. The parts of a
 * transaction in parts (a `$batch` change set, Engine.transactionInParts) are one job that commits or
 * fails whole, and each of its parts is followed as a job is: three comment POSTs in a change set
 * were three round trips, one behind the other, and are now sent together. A part after one that
 * failed is not started (the job fails with the first part's error, TransactionPartError).
 *
 * A batch can end with a read (`closingRead`) sent in one message with its COMMIT, no round trip of
 * its own: what it answers is the database as of that commit, this batch's writes included, and is
 * told before any job of the batch settles. The engine reads the access version so (postgres-engine.ts).
 *
 * SERIALIZABLE stays the safety net: a writer that does not take the turn (another program, a
 * statement outside a transaction) can still conflict; then the whole batch is rolled back and runs
 * again, a few times apart at random, before its jobs fail with the error (a 503 to retry).
 */
import { isPoolWait, isRetryable, sqlState } from './postgres-errors.js';
import type pg from 'pg';
import { connectionEnded, driverConnect, driverQuery, PostgresSession, type PostgresDatabase } from './postgres-database.js';
import { ServiceUnavailableError } from '../../errors/odata-error.js';
import { limitSetting } from '../../edm/service-limits.js';
import { q } from './postgres-ddl.js';
import { WRITE_TURN_TABLE } from './postgres-framework-tables.js';
import { TransactionPartError } from '../transaction-parts.js';
import { OneStatementJobs } from './one-statement-jobs.js';

/**
 * The first message of a batch, a simple query of two statements: its transaction, and the write turn
 * (nothing else uses the table, so only batches wait for its lock).
 */
export const BEGIN_WRITE_TURN = `BEGIN ISOLATION LEVEL SERIALIZABLE; LOCK TABLE ${q(WRITE_TURN_TABLE)} IN EXCLUSIVE MODE`;

/** Runs of a batch that lost to another writer, at most. */
const MAX_ATTEMPTS = 25;

/**
 * How a run of a batch orders its jobs: `pipelined` lets a job known as one statement be followed at
 * once; `inOrder` has each job wait for the one before; `savepoints` also wraps each in a savepoint.
 */
type Mode = 'pipelined' | 'inOrder' | 'savepoints';

/** A body of a batch's transaction, on the session that counts its statements. */
type Body = (session: PostgresSession) => Promise<unknown>;

interface Job {
  /**
   * What runs, in order: one body for a transaction; the parts of a transaction in parts
   * (`inParts`), each followed like a job of its own, and whose outcome is all their values or the
   * first one's error as TransactionPartError.
   */
  readonly parts: readonly Body[];
  readonly inParts: boolean;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** A read that ends every batch that commits, and who is told its first row (see the file comment). */
export interface ClosingRead {
  readonly sql: string;
  readonly committed: (row: Record<string, unknown> | undefined) => void;
}

type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** SQLSTATE of a statement ended by statement_timeout (the request time limit). */
const CANCELLED = '57014';

/** SQLSTATE of a session the server ended for idling in its transaction past the request time limit (postgres-database.ts). */
const IDLE_IN_TRANSACTION = '25P03';

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
  /** Which jobs are one statement, by their first statement (one-statement-jobs.ts). */
  private readonly oneStatement = new OneStatementJobs();
  /** Told when a job is queued, while a batch waits for its turn. */
  private arrival: { readonly promise: Promise<void>; readonly resolve: () => void } | undefined;

  /**
   * @param database the pool (a batch holds one of its connections)
   * @param timeoutMs the connections' statement_timeout (the request time limit), for the message of a write it ended
   * @param closingRead read with each batch's COMMIT, its row told before the batch's jobs settle
   * @param maxBatch the most jobs one COMMIT covers (bounds how long one batch holds the lock)
   */
  constructor(
    private readonly database: PostgresDatabase,
    private readonly timeoutMs: number,
    private readonly closingRead?: ClosingRead,
    private readonly maxBatch = 32,
  ) {}

  /** Runs `body` in a transaction shared with the other bodies of its batch; settles after COMMIT. */
  run<T>(body: (session: PostgresSession) => Promise<T>): Promise<T> {
    return this.enqueue<T>([body], false);
  }

  /**
   * Runs `parts` in order as one job of a batch: all commit, or the first that throws is undone with
   * all of them and the promise rejects with TransactionPartError. Each part is followed as a job is
   * (see the file comment).
   */
  runInParts<T>(parts: readonly ((session: PostgresSession) => Promise<T>)[]): Promise<T[]> {
    return this.enqueue<T[]>(parts, true);
  }

  private enqueue<T>(parts: readonly Body[], inParts: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ parts, inParts, resolve: resolve as (value: unknown) => void, reject });
      const arrival = this.arrival;
      this.arrival = undefined;
      arrival?.resolve();
      this.schedule();
    });
  }

  /** Settles when the next job is queued (a batch waiting for its turn takes it in, see `together`). */
  private nextArrival(): Promise<void> {
    if (this.arrival === undefined) {
      let resolve: () => void = () => undefined;
      const promise = new Promise<void>((r) => (resolve = r));
      this.arrival = { promise, resolve };
    }
    return this.arrival.promise;
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

  private async runWithReruns(batch: Job[]): Promise<Outcome[]> {
    // A savepoint per job costs two round trips, as many as a PATCH's own statements, so a batch first runs
    // without them; only when one of its jobs throws is it rolled back and run again with a savepoint per job.
    let mode: Mode = 'pipelined';
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.runOnce(batch, mode);
      } catch (e) {
        if (e instanceof JobThrew || e instanceof Interleaved) {
          mode = e instanceof JobThrew ? 'savepoints' : 'inOrder';
          attempt--;
          continue;
        }
        if (!isRetryable(e) || attempt === MAX_ATTEMPTS) throw e;
        // Apart at random, longer each time (to 200 ms), so the writers that collided do not collide again.
        await pause(Math.random() * Math.min(200, 2 ** attempt));
      }
    }
  }

  /** `e`, or the write's 503 when it is the time limit ending a statement, a stalled batch or a wait for a pooled connection. */
  private asWriteError(e: unknown): unknown {
    const code = sqlState(e);
    return code === CANCELLED || code === IDLE_IN_TRANSACTION || isPoolWait(e) ? writeTimeoutError(this.timeoutMs) : e;
  }

  /** One run of the batch in its write turn; throws (nothing committed) when the whole batch must run again or cannot commit. */
  private async runOnce(batch: Job[], mode: Mode): Promise<Outcome[]> {
    const client = await driverConnect(this.database.writePool).catch((e: unknown) => {
      throw this.asWriteError(e);
    });
    let broken: Error | undefined;
    // The server ends a session that idled in its transaction past the limit while no statement was
    // running: the connection reports it as an error of its own, and the next statement fails as not queryable.
    let stalled = false;
    const onError = (e: unknown): void => {
      if (sqlState(e) === IDLE_IN_TRANSACTION) stalled = true;
    };
    client.on('error', onError);
    try {
      return await this.inTransaction(client, batch, mode);
    } catch (e) {
      // A connection lost mid-protocol or ended by the server is not given back to others.
      if (connectionEnded(e) && !(e instanceof JobThrew) && !(e instanceof Interleaved)) broken = e;
      throw stalled ? writeTimeoutError(this.timeoutMs) : e;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  private async inTransaction(client: pg.PoolClient, batch: Job[], mode: Mode): Promise<Outcome[]> {
    const s = new PostgresSession(client);
    // Sent, not awaited: the first job's statements follow it on the connection, and fail (the
    // transaction aborted) when the turn was not given, whose error is then the batch's.
    const begun = driverQuery(client, BEGIN_WRITE_TURN).then(
      () => undefined,
      (e: unknown) => e,
    );
    const turnError = async (): Promise<unknown> => {
      const e = await begun;
      return e === undefined ? undefined : this.asWriteError(e);
    };
    try {
      const outcomes = mode === 'savepoints' ? await this.withSavepoints(s, batch) : await this.together(client, batch, mode, begun);
      const refused = await turnError();
      if (refused !== undefined) throw refused;
      // Another writer changed what the batch read: the whole batch runs again.
      const lost = outcomes.find((o) => !o.ok && isRetryable(causeOf(o.error)));
      if (lost !== undefined && !lost.ok) throw causeOf(lost.error);
      // Without savepoints only a batch of one can undo a job alone (the whole transaction).
      if (mode !== 'savepoints' && batch.length > 1 && outcomes.some((o) => !o.ok)) throw new JobThrew();
      const answers = outcomes.map((o): Outcome => (o.ok ? o : { ok: false, error: withCause(o.error, (e) => this.asWriteError(e)) }));
      if (!answers.some((o) => o.ok)) {
        await s.exec('ROLLBACK');
        return answers;
      }
      // PostgreSQL ends a transaction a failed statement aborted with ROLLBACK, even when asked to COMMIT
      // (a job that caught that statement's error): then nothing of the batch was written.
      // The closing read and the COMMIT in one message (a simple query of two statements: one write
      // and one answer); a failed read aborts the transaction, and the COMMIT does not run.
      const closing = this.closingRead;
      const ended = await driverQuery(client, closing === undefined ? 'COMMIT' : `${closing.sql}; COMMIT`);
      // node-postgres answers a simple query of several statements with the result of each.
      const [read, end] = closing === undefined ? [undefined, ended] : (ended as unknown as pg.QueryResult[]);
      if (end?.command !== 'COMMIT') throw new Error('the write transaction was rolled back at its end: one of its statements had failed');
      if (closing !== undefined) closing.committed(read?.rows[0]);
      return answers;
    } catch (e) {
      // Also when the turn was not given (BEGIN ran; a simple query stops at its first failed statement).
      await s.exec('ROLLBACK').catch(() => undefined);
      throw (await turnError()) ?? e;
    }
  }

  /**
   * Runs the jobs in queue order without savepoints, each part of a job in parts as a job of its own;
   * in `pipelined` mode one known as one statement is followed as soon as it sent it, and the jobs
   * queued while the batch waits for its turn (`turn`, its BEGIN's answer) join it (up to `maxBatch`):
   * their statements wait behind the others for the lock, and the batch's one COMMIT and one turn cover
   * them. Settles when every job has; throws Interleaved when one sent a statement after a later one's.
   */
  private async together(client: pg.PoolClient, batch: Job[], mode: Mode, turn: Promise<unknown>): Promise<Outcome[]> {
    const bodies: Body[] = [];
    const jobOf: number[] = [];
    const take = (from: number): void => {
      for (let j = from; j < batch.length; j++) for (const body of batch[j]?.parts ?? []) (bodies.push(body), jobOf.push(j));
    };
    take(0);
    let given = false;
    void turn.then(() => (given = true));
    // The jobs one of whose parts failed: their later parts are not started (they would not be, one after the other).
    const failedJobs = new Set<number>();
    const sent: number[] = [];
    const firsts: (string | undefined)[] = [];
    let latest = -1;
    let interleaved = false;
    const settled: Promise<Outcome>[] = [];
    for (let i = 0; ; i++) {
      if (i === bodies.length) {
        if (mode !== 'pipelined' || given || batch.length >= this.maxBatch) break;
        if (this.queue.length === 0) await Promise.race([this.nextArrival(), turn, Promise.all(settled)]);
        if (given || this.queue.length === 0) break;
        const from = batch.length;
        batch.push(...this.queue.splice(0, this.maxBatch - batch.length));
        take(from);
      }
      const body = bodies[i] as Body;
      const j = jobOf[i] ?? -1;
      if (failedJobs.has(j)) {
        settled.push(Promise.resolve({ ok: false, error: new Error('not run: a part before it failed') }));
        continue;
      }
      let began: () => void = () => undefined;
      const first = new Promise<void>((resolve) => (began = resolve));
      const session = new PostgresSession(client, (sql) => {
        const before = sent[i] ?? 0;
        sent[i] = before + 1;
        if (before === 0) {
          firsts[i] = sql;
          began();
        }
        if (latest > i) interleaved = true;
        else latest = i;
      });
      // A body that throws before it returns its promise settles here too (the bodies before it are still running).
      const outcome = new Promise<unknown>((resolve) => resolve(body(session))).then(
        (value): Outcome => ({ ok: true, value }),
        (error: unknown): Outcome => {
          failedJobs.add(j);
          return { ok: false, error };
        },
      );
      settled.push(outcome);
      if (mode === 'pipelined') await Promise.race([first, outcome]);
      if (mode !== 'pipelined' || sent[i] !== 1 || !this.oneStatement.known(firsts[i])) await outcome;
    }
    const outcomes = await Promise.all(settled);
    // Learned from the bodies that sent more than one statement, and from those of one that succeeded: one
    // whose statement failed (or that ran behind one that did, 25P02) says nothing of its kind.
    firsts.forEach((sql, i) => {
      const count = sent[i] ?? 0;
      if (sql !== undefined && (count > 1 || outcomes[i]?.ok === true)) this.oneStatement.learn(sql, count === 1);
    });
    // In order, only a body that sends a statement after it settled (work it did not await) can come after
    // a later one's; running the batch again would not change that.
    if (interleaved && mode === 'pipelined') throw new Interleaved();
    let next = 0;
    return batch.map((job) => jobOutcome(job, outcomes.slice(next, (next += job.parts.length))));
  }

  /** Runs the jobs one after the other, each in a savepoint: one that throws is undone alone (a job in parts whole). */
  private async withSavepoints(s: PostgresSession, batch: readonly Job[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (const job of batch) {
      await s.exec('SAVEPOINT "job"');
      const values: unknown[] = [];
      let failed: Outcome | undefined;
      for (const [index, body] of job.parts.entries()) {
        try {
          values.push(await body(s));
        } catch (error) {
          failed = { ok: false, error: job.inParts ? new TransactionPartError(index, error) : error };
          // Another writer changed what the batch read: the whole batch runs again.
          if (isRetryable(error)) return [...outcomes, failed];
          break;
        }
      }
      if (failed === undefined) outcomes.push({ ok: true, value: job.inParts ? values : values[0] });
      else {
        outcomes.push(failed);
        await s.exec('ROLLBACK TO SAVEPOINT "job"');
      }
      await s.exec('RELEASE SAVEPOINT "job"');
    }
    return outcomes;
  }
}

/** The outcome of `job` from those of its bodies: the value (all values, in parts), or the first body's error. */
function jobOutcome(job: Job, outcomes: readonly Outcome[]): Outcome {
  const index = outcomes.findIndex((o) => !o.ok);
  const failed = outcomes[index];
  if (failed !== undefined && !failed.ok) return { ok: false, error: job.inParts ? new TransactionPartError(index, failed.error) : failed.error };
  const values = outcomes.map((o) => (o.ok ? o.value : undefined));
  return { ok: true, value: job.inParts ? values : values[0] };
}

/** What a job's body threw, also when the job is in parts. */
function causeOf(error: unknown): unknown {
  return error instanceof TransactionPartError ? error.error : error;
}

/** `error` with its cause mapped by `f` (kept in its TransactionPartError, when the job is in parts). */
function withCause(error: unknown, f: (e: unknown) => unknown): unknown {
  return error instanceof TransactionPartError ? new TransactionPartError(error.index, f(error.error)) : f(error);
}

/** A job of a batch run without savepoints threw: the batch is rolled back and runs again with them. */
class JobThrew extends Error {}

/** A job sent a statement after a later job's (it was taken for one statement): the batch runs again in order. */
class Interleaved extends Error {}

function settle(job: Job, outcome: Outcome): void {
  if (outcome.ok) job.resolve(outcome.value);
  else job.reject(outcome.error);
}
