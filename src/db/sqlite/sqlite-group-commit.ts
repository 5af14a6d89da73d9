/**
 * Group commit: the write transactions of requests that become ready in the same turn of the event
 * loop run in one SQLite transaction and share its COMMIT. Each runs inside its own savepoint, so one
 * that throws is rolled back alone and gets its error while the others commit; a caller's promise
 * settles only after the COMMIT, so nothing is answered before it is durable (as durable as the
 * connection's `synchronous` setting makes any commit).
 *
 * Why: under concurrent writes most of a small write's time is the commit, which writes every page
 * the transaction changed to the WAL (and the checkpoint copies them back). Writes of one batch
 * mostly change the same pages (the table's last leaf, the parent row, the index leaves next to
 * each other), so a batch writes them once.
 *
 * The result is the same as running the jobs one after the other in queue order: a later job of a
 * batch sees the changes of the earlier ones, and nothing else runs in between. A job may be
 * asynchronous (the engine-neutral write path awaits its statements): SQLite's statements answer at
 * once, so its awaits are microtasks and the batch still finishes before any other event-loop task
 * runs; a job that awaited real I/O would hold the transaction open, which the write path never does.
 * A transaction asked for inside a running job is a savepoint of it. That is told without
 * AsyncLocalStorage, whose promise hooks cost every promise of the process (a fifth of a small write's
 * CPU on Node 20, and as much when enabled only while a batch runs): a job is running and its batch has
 * not yet let the event loop go on, which a request's start (newTask), the next timers phase or the
 * next check phase ends. So a rule that awaits real I/O against the contract makes writes wait, and
 * never takes another request's write into its own transaction. One window stays: an I/O callback that
 * is not a request's (a webhook's answer to the delivery worker) in the first poll phase after such a
 * rule began to wait, within its first millisecond, could be joined; the delivery worker's writes are
 * claims and results that, undone with the job, are made again later. A command that
 * holds one transaction open across file reads (seed, import --atomic) opens it on the connection
 * itself (SqliteEngine.outerTransaction), and the batches inside it run as part of it.
 *
 * Several processes on one file (issue 17): the transaction takes the write lock when it begins (BEGIN
 * IMMEDIATE, waiting out other writers up to the connection's busy timeout), so its reads and writes see
 * one state; a DEFERRED one that read first failed with SQLITE_BUSY_SNAPSHOT when another process
 * committed between its read and its first write. A batch that still meets a busy database (the lock
 * held past the busy timeout) is rolled back and run again a few times after a short pause off the
 * event loop, and only then fails with the busy error (a 503 to retry, db/sqlite/sqlite-errors.ts).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { isBusy } from './sqlite-errors.js';

interface Job {
  readonly fn: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/** Runs of a batch that met a busy database, and the pause before each rerun (ms). */
const BUSY_RETRY_PAUSES_MS = [5, 25, 100, 250];

/** A job met a busy database: the whole batch is rolled back and run again. */
class BatchBusy extends Error {
  constructor(readonly error: unknown) {
    super('the database was busy');
  }
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const isThenable = (v: unknown): v is PromiseLike<unknown> => v !== null && typeof v === 'object' && typeof (v as { then?: unknown }).then === 'function';

/** Runs transaction bodies in batches sharing one COMMIT (see the file comment). */
export class GroupCommit {
  private queue: Job[] = [];
  private scheduled = false;
  private running = false;
  private statements: { savepoint: BetterSqlite3.Statement; release: BetterSqlite3.Statement; undo: BetterSqlite3.Statement } | undefined;
  /** A job of the running batch has started and not yet settled. */
  private jobRunning = false;
  /** The running batch has not let the event loop go on to another task since it began (see `run`). */
  private sameTurn = false;
  private turns = 0;

  /**
   * @param connection the connection (any read snapshot of it ended)
   * @param maxBatch the most jobs one COMMIT covers (bounds how long one batch holds the event loop)
   */
  constructor(
    private readonly connection: () => BetterSqlite3.Database,
    private readonly maxBatch = 32,
  ) {}

  /** Runs `fn` in a transaction shared with the other bodies queued in this turn; settles after COMMIT. */
  run<T>(fn: () => T | Promise<T>): Promise<T> {
    // While a job runs and its batch still holds the event loop's turn, only that job's continuations
    // run: a transaction asked for now is asked for inside the job (else it would wait for the batch it
    // is part of). Once the turn passed (a job awaited real I/O), other requests' transactions queue.
    if (this.jobRunning && this.sameTurn) return this.nested(fn);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running || this.queue.length === 0) return;
    this.scheduled = true;
    // setImmediate: after the I/O callbacks of this turn, so requests read in the same turn join.
    setImmediate(() => void this.flush());
  }

  /** A transaction asked for inside a running job: a savepoint of it, undone alone when `fn` throws. */
  private async nested<T>(fn: () => T | Promise<T>): Promise<T> {
    const raw = this.connection();
    const s = this.sql(raw);
    s.savepoint.run();
    try {
      const value = await fn();
      s.release.run();
      return value;
    } catch (e) {
      if (raw.inTransaction) {
        s.undo.run();
        s.release.run();
      }
      throw e;
    }
  }

  private sql(raw: BetterSqlite3.Database): NonNullable<GroupCommit['statements']> {
    if (this.statements === undefined) {
      this.statements = {
        savepoint: raw.prepare('SAVEPOINT "job"'),
        release: raw.prepare('RELEASE "job"'),
        undo: raw.prepare('ROLLBACK TO "job"'),
      };
    }
    return this.statements;
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    this.running = true;
    const batch = this.queue.slice(0, this.maxBatch);
    this.queue = this.queue.slice(batch.length);
    try {
      let outcomes = await this.handleBatch(batch);
      for (const ms of BUSY_RETRY_PAUSES_MS) {
        if (!outcomes.busy) break;
        await pause(ms + Math.random() * ms);
        outcomes = await this.handleBatch(batch);
      }
      batch.forEach((job, i) => settle(job, outcomes.each[i] as Outcome));
    } finally {
      this.running = false;
      this.schedule();
    }
  }

  /**
   * A new task of the event loop began (a request starts: Database.enterRequest): the running batch, if
   * any, no longer holds the turn. The setImmediate of markTurn says so only in the check phase, after
   * the poll phase whose I/O callbacks start requests.
   */
  newTask(): void {
    this.sameTurn = false;
  }

  /**
   * The batch holds the turn from now until the event loop goes on to its next task: told by the next
   * timers phase (a timer set now fires before any timer set later, such as one a job's body sets) or
   * the next check phase, whichever comes first, and by a request's start (newTask).
   */
  private markTurn(): void {
    this.sameTurn = true;
    const turn = ++this.turns;
    const passed = (): void => {
      if (this.turns === turn) this.sameTurn = false;
    };
    setImmediate(passed);
    setTimeout(passed, 0);
  }

  /**
   * One outcome per job; every job fails when the shared transaction cannot commit, and `busy` says
   * it failed on a busy database (nothing of it committed: the batch may run again).
   */
  private async handleBatch(batch: readonly Job[]): Promise<{ readonly each: Outcome[]; readonly busy: boolean }> {
    const outcomes: Outcome[] = [];
    const raw = this.connection();
    const s = this.sql(raw);
    // Inside a transaction the caller holds open (an atomic import, a dry run), the batch is part of it.
    const outer = raw.inTransaction;
    this.markTurn();
    try {
      if (!outer) raw.exec('BEGIN IMMEDIATE');
      for (const job of batch) {
        s.savepoint.run();
        let outcome: Outcome;
        this.jobRunning = true;
        try {
          const v = job.fn();
          outcome = { ok: true, value: isThenable(v) ? await v : v };
        } catch (error) {
          outcome = { ok: false, error };
        } finally {
          this.jobRunning = false;
        }
        // SQLite ended the whole transaction (e.g. disk full): the earlier jobs' changes are gone too.
        if (!raw.inTransaction) throw outcome.ok ? new Error('the transaction ended inside a write') : outcome.error;
        if (!outcome.ok && !outer && isBusy(outcome.error)) throw new BatchBusy(outcome.error);
        if (!outcome.ok) s.undo.run();
        s.release.run();
        outcomes.push(outcome);
      }
      if (!outer) raw.exec('COMMIT');
      return { each: outcomes, busy: false };
    } catch (thrown) {
      if (!outer && raw.inTransaction) raw.exec('ROLLBACK');
      const error = thrown instanceof BatchBusy ? thrown.error : thrown;
      return { each: batch.map(() => ({ ok: false, error })), busy: !outer && isBusy(error) };
    }
  }
}

function settle(job: Job, outcome: Outcome): void {
  if (outcome.ok) job.resolve(outcome.value);
  else job.reject(outcome.error);
}
