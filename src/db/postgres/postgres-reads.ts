/**
 * A request's reads on PostgreSQL (db/engine.ts ReadRunner): the server runs them on its own processes,
 * so there are no read threads; every statement is bounded by the request deadline (the connections'
 * statement_timeout, limits.requestTimeoutMs: a cancelled statement is the same 503 a SQLite read
 * thread gives, postgres-errors.ts). A read of one statement runs on any pooled connection; a read of
 * several statements runs in one REPEATABLE READ READ ONLY transaction, so they see one snapshot, and
 * so do the reads of runTogether until one of them fails (see there). Inside a command's outer
 * transaction (Engine.outerTransaction) the reads run in it. Rows are fetched
 * whole (a page statement carries its LIMIT) and then cut at the page size and budget by the same code
 * as SQLite's (read-steps.ts).
 */
import type { HeavyReadGate } from '../heavy-read-gate.js';
import type { ReadRunner } from '../engine.js';
import type { ReadRequest } from '../engine.js';
import type { ReadOutcome } from '../read-steps.js';
import { runStep, type ReadStep, type StepConnection, type StepResult, type StepRow } from '../read-steps.js';
import type { PostgresDatabase, PostgresSession } from './postgres-database.js';
import { expectedWork, fullWork, type ReadCost } from '../../query/read-cost.js';
import { PostgresTableSizes } from './postgres-table-sizes.js';

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

/**
 * A read of runTogether failed, which ends its transaction. It carries the failure's `code` when there
 * is one (a SQLSTATE, a socket's code), so that the session gives the connection back to the pool
 * unless the code says it ended (postgres-database.ts connectionEnded); without one (a connection lost
 * mid-protocol) the connection is dropped.
 */
class ReadFailed extends Error {
  declare readonly code?: string;

  constructor(error: unknown) {
    super('a read of several failed');
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string') (this as { code?: string }).code = code;
  }
}

/** Runs `reads` from `outcomes.length` on, adding their outcomes; throws ReadFailed after adding a failed one's. */
async function untilOneFails(on: PostgresSession, reads: readonly ReadRequest[], outcomes: ReadOutcome[]): Promise<void> {
  while (outcomes.length < reads.length) {
    const read = reads[outcomes.length] as ReadRequest;
    try {
      outcomes.push({ ok: true, results: await runSteps(on, read.steps) });
    } catch (error) {
      outcomes.push({ ok: false, error });
      throw new ReadFailed(error);
    }
  }
}

/** Each read under a savepoint, so a failed one does not end the write transaction the reads are in. */
async function withSavepoints(on: PostgresSession, reads: readonly ReadRequest[]): Promise<ReadOutcome[]> {
  const outcomes: ReadOutcome[] = [];
  for (const read of reads) {
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
  private readonly sizes: PostgresTableSizes;

  /**
   * @param db the pool
   * @param current the session of the command's outer transaction, if one is open (Engine.outerTransaction)
   */
  constructor(
    private readonly db: PostgresDatabase,
    private readonly current: () => PostgresSession | undefined,
    /** Bounds the heavy reads that hold connections at once (db/heavy-read-gate.ts). */
    private readonly heavy?: HeavyReadGate,
    /** Expected work past which a read is heavy (limits.maxInlineRows: what SQLite would send to a read thread). */
    private readonly maxLightWork = Infinity,
  ) {
    this.sizes = new PostgresTableSizes(db);
  }

  async fullWork(reads: readonly ReadRequest[]): Promise<number> {
    const rowsOf = await this.sizes.rowsOf();
    let work = 0;
    for (const r of reads) work += fullWork(r.cost, rowsOf);
    return work;
  }

  run(read: ReadRequest): Promise<StepResult[]> {
    const tx = this.current();
    if (tx !== undefined) return runSteps(tx, read.steps);
    if (this.heavy !== undefined && this.isHeavy([read.cost])) return this.heavy.run(read.owner, () => this.runOne(read));
    return this.runOne(read);
  }

  /**
   * true when reads (a batch's, together) are heavy: a lambda over a collection, or expected work past
   * maxLightWork, priced with the sizes known now. Large pages and scans hold a connection, and the
   * server's CPU, as long as lambdas do; a hundred cheap reads of a batch run on one connection one
   * after another.
   */
  private isHeavy(costs: readonly ReadCost[]): boolean {
    if (costs.some((c) => c.correlated)) return true;
    if (this.maxLightWork === Infinity) return false;
    const rowsOf = this.sizes.known();
    let work = 0;
    for (const c of costs) work += expectedWork(c, rowsOf);
    return work > this.maxLightWork;
  }

  private runOne(read: ReadRequest): Promise<StepResult[]> {
    if (read.steps.length === 1) return runSteps(this.db, read.steps);
    return this.db.transaction((s) => runSteps(s, read.steps), { isolation: 'REPEATABLE READ', readOnly: true });
  }

  /**
   * The reads in one REPEATABLE READ READ ONLY transaction, without a savepoint each: a savepoint costs
   * two round trips, more than most reads' own statement, and is needed only when a read fails (a
   * failed statement ends the transaction). After a failed read, which keeps its error, the reads
   * that follow it run in a new transaction, so they see a later snapshot than those before it;
   * nothing runs twice (a read that failed because the server is overloaded, or past the time limit,
   * is not followed by the same work again). Inside a command's outer transaction, a savepoint each.
   */
  async runTogether(reads: readonly ReadRequest[]): Promise<ReadOutcome[]> {
    const tx = this.current();
    if (tx !== undefined) return withSavepoints(tx, reads);
    if (this.heavy !== undefined && this.isHeavy(reads.map((r) => r.cost))) return this.heavy.run(reads[0]?.owner, () => this.together(reads));
    return this.together(reads);
  }

  private async together(reads: readonly ReadRequest[]): Promise<ReadOutcome[]> {
    const outcomes: ReadOutcome[] = [];
    while (outcomes.length < reads.length) {
      try {
        await this.db.transaction((s) => untilOneFails(s, reads, outcomes), { isolation: 'REPEATABLE READ', readOnly: true });
      } catch (e) {
        if (e instanceof ReadFailed) continue;
        // A new transaction could not begin (the server went away after a failed read): the reads
        // that have their answer keep it, the others get this error. COMMIT failing (all answered) or
        // the first BEGIN failing (none answered) fails them all, as a read of one statement would.
        if (outcomes.length === 0 || outcomes.length === reads.length) throw e;
        while (outcomes.length < reads.length) outcomes.push({ ok: false, error: e });
      }
    }
    return outcomes;
  }
}
