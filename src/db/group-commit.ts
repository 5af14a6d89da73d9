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
 * batch sees the changes of the earlier ones, and nothing else runs in between (the whole batch is
 * synchronous).
 */
import type BetterSqlite3 from 'better-sqlite3';

interface Job {
  readonly fn: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/** Runs synchronous transaction bodies in batches sharing one COMMIT (see the file comment). */
export class GroupCommit {
  private queue: Job[] = [];
  private scheduled = false;

  /**
   * @param connection the connection (any read snapshot of it ended)
   * @param transaction runs a body in a transaction (a savepoint when one is open), with the caller's checks
   * @param maxBatch the most jobs one COMMIT covers (bounds how long one batch holds the event loop)
   */
  constructor(
    private readonly connection: () => BetterSqlite3.Database,
    private readonly transaction: <T>(fn: () => T) => T,
    private readonly maxBatch = 32,
  ) {}

  /** Runs `fn` in a transaction shared with the other bodies queued in this turn; settles after COMMIT. */
  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate: after the I/O callbacks of this turn, so requests read in the same turn join.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue.slice(0, this.maxBatch);
    this.queue = this.queue.slice(batch.length);
    if (this.queue.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    if (batch.length === 1) {
      const job = batch[0] as Job;
      settle(job, attempt(() => this.transaction(job.fn)));
      return;
    }
    const outcomes = this.runBatch(batch);
    batch.forEach((job, i) => settle(job, outcomes[i] as Outcome));
  }

  /** One outcome per job; every job fails when the shared transaction cannot commit. */
  private runBatch(batch: readonly Job[]): Outcome[] {
    const outcomes: Outcome[] = [];
    const raw = this.connection();
    try {
      raw.exec('BEGIN');
      for (const job of batch) {
        const outcome = attempt(() => this.transaction(job.fn)); // a savepoint inside the open transaction
        if (!outcome.ok && !raw.inTransaction) {
          // SQLite ended the whole transaction (e.g. disk full): the earlier jobs' changes are gone too.
          throw outcome.error;
        }
        outcomes.push(outcome);
      }
      raw.exec('COMMIT');
      return outcomes;
    } catch (error) {
      if (raw.inTransaction) raw.exec('ROLLBACK');
      return batch.map(() => ({ ok: false, error }));
    }
  }
}

function attempt(fn: () => unknown): Outcome {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

function settle(job: Job, outcome: Outcome): void {
  if (outcome.ok) job.resolve(outcome.value);
  else job.reject(outcome.error);
}
