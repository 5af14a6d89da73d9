/**
 * A request's reads on PostgreSQL (db/engine.ts ReadRunner): the server runs them on its own processes,
 * so there are no read threads; every statement is bounded by the request deadline (the connections'
 * statement_timeout, limits.requestTimeoutMs: a cancelled statement is the same 503 a SQLite read
 * thread gives, postgres-errors.ts). A read of one statement runs on any pooled connection; a read of
 * several (a page and its count), and the reads of runTogether, run in one REPEATABLE READ READ ONLY
 * transaction, so they see one snapshot. Inside a transaction's async context (a write answering with
 * what it wrote) the reads run in that transaction. Rows are fetched whole (a page statement carries
 * its LIMIT) and then cut at the page size and budget by the same code as SQLite's (read-steps.ts).
 */
import type { ReadRunner } from '../engine.js';
import type { ReadRequest } from '../read-executor.js';
import type { ReadOutcome } from '../read-pool.js';
import { runStep, type ReadStep, type StepConnection, type StepResult, type StepRow } from '../read-steps.js';
import type { PostgresDatabase, PostgresSession } from './postgres-database.js';

/** Where statements run: the pool, or one connection (a transaction). */
type Runner = Pick<PostgresSession, 'get' | 'all' | 'rows'>;

/** Runs one step: the statement on `on`, then the page cut as SQLite cuts it. */
async function runPostgresStep(on: Runner, step: ReadStep): Promise<StepResult> {
  switch (step.kind) {
    case 'row':
      return { kind: 'row', row: await on.get(step.query) };
    case 'page':
      return runStep(fetched({ arrays: await on.rows(step.query) }), step);
    case 'rows':
      return runStep(fetched({ objects: await on.all(step.query) }), step);
  }
}

/** A StepConnection over rows already fetched. */
function fetched(rows: { readonly arrays?: unknown[][]; readonly objects?: StepRow[] }): StepConnection {
  return {
    get: () => {
      throw new Error('a fetched step has no single row');
    },
    iterateRows: () => (rows.arrays ?? [])[Symbol.iterator](),
    iterate: () => (rows.objects ?? [])[Symbol.iterator](),
  };
}

async function runSteps(on: Runner, steps: readonly ReadStep[]): Promise<StepResult[]> {
  const results: StepResult[] = [];
  for (const step of steps) results.push(await runPostgresStep(on, step));
  return results;
}

/** A read of runTogether failed in a transaction without savepoints: it is rolled back and run again with them. */
class ReadFailed extends Error {
  constructor(
    readonly index: number,
    readonly error: unknown,
  ) {
    super('a read of several failed');
  }
}

async function withoutSavepoints(on: PostgresSession, reads: readonly ReadRequest[]): Promise<ReadOutcome[]> {
  const outcomes: ReadOutcome[] = [];
  for (const [i, read] of reads.entries()) {
    try {
      outcomes.push({ ok: true, results: await runSteps(on, read.steps) });
    } catch (error) {
      throw new ReadFailed(i, error);
    }
  }
  return outcomes;
}

/** Each read under a savepoint, so a failed one does not end the others; `failed` already have their error. */
async function withSavepoints(on: PostgresSession, reads: readonly ReadRequest[], failed: ReadonlyMap<number, unknown>): Promise<ReadOutcome[]> {
  const outcomes: ReadOutcome[] = [];
  for (const [i, read] of reads.entries()) {
    if (failed.has(i)) {
      outcomes.push({ ok: false, error: failed.get(i) });
      continue;
    }
    await on.exec('SAVEPOINT "read"');
    try {
      outcomes.push({ ok: true, results: await runSteps(on, read.steps) });
      await on.exec('RELEASE SAVEPOINT "read"');
    } catch (error) {
      await on.exec('ROLLBACK TO SAVEPOINT "read"');
      outcomes.push({ ok: false, error });
    }
  }
  return outcomes;
}

/** The reads of a PostgreSQL engine. */
export class PostgresReads implements ReadRunner {
  /**
   * @param db the pool
   * @param current the session of the transaction whose async context the caller is in, if any
   */
  constructor(
    private readonly db: PostgresDatabase,
    private readonly current: () => PostgresSession | undefined,
  ) {}

  run(read: ReadRequest): Promise<StepResult[]> {
    const tx = this.current();
    if (tx !== undefined) return runSteps(tx, read.steps);
    if (read.steps.length === 1) return runSteps(this.db, read.steps);
    return this.db.transaction((s) => runSteps(s, read.steps), { isolation: 'REPEATABLE READ', readOnly: true });
  }

  /**
   * The reads in one REPEATABLE READ snapshot. A savepoint per read costs two round trips, more than
   * most reads' own statement, and is needed only when one fails (a failed statement aborts the
   * transaction): so the reads first run without them, and when one fails the transaction is rolled
   * back and the others run again in a new one with a savepoint each. The one that failed keeps its
   * error and is not run again (a read ended by the time limit would take as long again). Inside a
   * write transaction there is nothing to run again: savepoints from the start.
   */
  async runTogether(reads: readonly ReadRequest[]): Promise<ReadOutcome[]> {
    const tx = this.current();
    if (tx !== undefined) return withSavepoints(tx, reads, new Map());
    try {
      return await this.db.transaction((s) => withoutSavepoints(s, reads), { isolation: 'REPEATABLE READ', readOnly: true });
    } catch (e) {
      if (!(e instanceof ReadFailed)) throw e;
      const failed = new Map([[e.index, e.error]]);
      return this.db.transaction((s) => withSavepoints(s, reads, failed), { isolation: 'REPEATABLE READ', readOnly: true });
    }
  }
}
