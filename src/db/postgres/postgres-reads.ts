/**
 * A request's reads on PostgreSQL (db/engine.ts ReadRunner). The server runs the statements; every one
 * is bounded by the request deadline (the connections' statement_timeout, limits.requestTimeoutMs: a
 * cancelled statement is the same 503 a SQLite read thread gives, postgres-errors.ts). A read of one
 * statement runs on any pooled connection; a read of several statements runs in one REPEATABLE READ
 * READ ONLY transaction, so they see one snapshot, and so do the reads of runTogether until one of them
 * fails (see there). Inside a command's outer transaction (Engine.outerTransaction) the reads run in it.
 * Rows are fetched whole (a page statement carries its LIMIT) and then cut at the page size and budget
 * by the same code as SQLite's (read-steps.ts).
 *
 * Heavy reads (isHeavy) run in read threads (postgres-read-threads.ts) with connections of their own:
 * receiving a large answer (parsing its rows, joining its page) is this process's CPU, which on the
 * event loop delayed every other request. Without threads (limits.readWorkers 0) they run here, at most
 * a few at once (db/heavy-read-gate.ts). The cheap reads stay on the event loop: no thread hop.
 */
import type { HeavyReadGate } from '../heavy-read-gate.js';
import type { ReadRunner } from '../engine.js';
import type { ReadRequest } from '../engine.js';
import type { ReadOutcome } from '../read-steps.js';
import { runStep, type ReadStep, type StepConnection, type StepResult, type StepRow } from '../read-steps.js';
import type { ReadThreadPool } from '../read-thread-pool.js';
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
async function untilOneFails(on: PostgresSession, reads: readonly (readonly ReadStep[])[], outcomes: ReadOutcome[]): Promise<void> {
  while (outcomes.length < reads.length) {
    const steps = reads[outcomes.length] as readonly ReadStep[];
    try {
      outcomes.push({ ok: true, results: await runSteps(on, steps) });
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

/** One read on `db`'s pool: one statement on any connection, several in one REPEATABLE READ READ ONLY transaction. */
export function readOn(db: PostgresDatabase, steps: readonly ReadStep[]): Promise<StepResult[]> {
  if (steps.length === 1) return runSteps(db, steps);
  return db.transaction((s) => runSteps(s, steps), { isolation: 'REPEATABLE READ', readOnly: true });
}

/**
 * The reads in one REPEATABLE READ READ ONLY transaction of `db`, without a savepoint each: a savepoint
 * costs two round trips, more than most reads' own statement, and is needed only when a read fails (a
 * failed statement ends the transaction). After a failed read, which keeps its error, the reads that
 * follow it run in a new transaction, so they see a later snapshot than those before it; nothing runs
 * twice (a read that failed because the server is overloaded, or past the time limit, is not followed
 * by the same work again).
 */
export async function readTogetherOn(db: PostgresDatabase, reads: readonly (readonly ReadStep[])[]): Promise<ReadOutcome[]> {
  const outcomes: ReadOutcome[] = [];
  while (outcomes.length < reads.length) {
    try {
      await db.transaction((s) => untilOneFails(s, reads, outcomes), { isolation: 'REPEATABLE READ', readOnly: true });
    } catch (e) {
      if (e instanceof ReadFailed) continue;
      // A new transaction could not begin (the server went away after a failed read): the reads that have their answer keep it, the others get this error. COMMIT failing
      // (all answered) or the first BEGIN failing (none answered) fails them all, as a read of one
      // statement would.
      if (outcomes.length === 0 || outcomes.length === reads.length) throw e;
      while (outcomes.length < reads.length) outcomes.push({ ok: false, error: e });
    }
  }
  return outcomes;
}

/** The read threads a runner's heavy reads go to, and which of their databases is this runner's (0 the primary, then each replica). */
export interface ReadThreads {
  readonly pool: ReadThreadPool;
  readonly target: number;
}

/** Where a runner's heavy reads go (see the file comment), and what is heavy. */
export interface HeavyReads {
  /** Read threads (postgres-read-threads.ts); without them, the gate. */
  readonly threads?: ReadThreads;
  /** Bounds the heavy reads that hold connections of the pool at once (db/heavy-read-gate.ts). */
  readonly gate?: HeavyReadGate;
  /**
   * With threads: bounds the lambda reads among them (one at a time by default): a lambda over a
   * collection keeps a core of the server busy for its whole deadline, and two of them on a small
   * server starve everybody's cheap queries of CPU; scans and large pages may run beside them.
   */
  readonly lambdas?: HeavyReadGate;
  /** Expected work past which a read is heavy (limits.maxInlineRows: what SQLite would send to a read thread). */
  readonly maxLightWork?: number;
}

/** The reads of a PostgreSQL engine. */
export class PostgresReads implements ReadRunner {
  private readonly sizes: PostgresTableSizes;

  /**
   * @param db the pool
   * @param current the session of the command's outer transaction, if one is open (Engine.outerTransaction)
   */
  private readonly maxLightWork: number;

  /**
   * @param db the pool
   * @param current the session of the command's outer transaction, if one is open (Engine.outerTransaction)
   * @param heavy where heavy reads go; without it, every read runs on the pool as it comes
   */
  constructor(
    private readonly db: PostgresDatabase,
    private readonly current: () => PostgresSession | undefined,
    private readonly heavy: HeavyReads = {},
  ) {
    this.sizes = new PostgresTableSizes(db);
    this.maxLightWork = heavy.maxLightWork ?? Infinity;
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
    if (!this.hasHeavyPath() || !this.isHeavy([read.cost])) return readOn(this.db, read.steps);
    const { threads, gate } = this.heavy;
    if (threads !== undefined) return this.lambdasInTurn([read.cost], read.owner, () => threads.pool.run(read.steps, read.owner, threads.target));
    return (gate as HeavyReadGate).run(read.owner, () => readOn(this.db, read.steps));
  }

  /** `run` through the lambda gate when one of the reads is a lambda over a collection, at once otherwise. */
  private lambdasInTurn<T>(costs: readonly ReadCost[], owner: string | undefined, run: () => Promise<T>): Promise<T> {
    const lambdas = this.heavy.lambdas;
    return lambdas !== undefined && costs.some((c) => c.correlated) ? lambdas.run(owner, run) : run();
  }

  private hasHeavyPath(): boolean {
    return this.heavy.threads !== undefined || this.heavy.gate !== undefined;
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

  /**
   * The reads in one snapshot (readTogetherOn); heavy together, in one job of a read thread. Inside a
   * command's outer transaction, a savepoint each.
   */
  async runTogether(reads: readonly ReadRequest[]): Promise<ReadOutcome[]> {
    const tx = this.current();
    if (tx !== undefined) return withSavepoints(tx, reads);
    const steps = reads.map((r) => r.steps);
    if (!this.hasHeavyPath() || !this.isHeavy(reads.map((r) => r.cost))) return readTogetherOn(this.db, steps);
    const { threads, gate } = this.heavy;
    if (threads !== undefined) return this.lambdasInTurn(reads.map((r) => r.cost), reads[0]?.owner, () => threads.pool.runTogether(steps, reads[0]?.owner, threads.target));
    return (gate as HeavyReadGate).run(reads[0]?.owner, () => readTogetherOn(this.db, steps));
  }
}
