/**
 * PostgreSQL (15 or newer) as an engine (db/engine.ts): a node-postgres pool whose statements answer
 * with promises, in the stored forms SQLite gives (postgres-types.ts, postgres-ddl.ts), so the same
 * core code, rules and tests serve both. Transactions are batched per instance and take turns across
 * instances under a table lock, in SERIALIZABLE transactions that run again when another writer
 * changed the ground under them (postgres-write-batches.ts).
 *
 * A transaction's body works through the `tx` it is given (a nested one through `tx.savepoint`), as
 * the write path does (store/write-session.ts). No async context says which transaction a statement
 * belongs to: AsyncLocalStorage's promise hooks cost every promise of the process, reads included,
 * once its first transaction ran (a third of the node CPU of a `$batch` change set). So
 * `engine.transaction` or a statement of `db` called from inside a body is not part of it, unlike on
 * SQLite, where one connection makes it so: a transaction would wait for the batch its caller holds.
 * The one exception is a command's outer transaction (outerTransaction: seed, import --atomic, the
 * only users of their process): while it is open, every transaction is a savepoint of it, and `db`
 * and the reads run on its connection.
 */
import type { Logger } from 'pino';
import pino from 'pino';
import { HeavyReadGate } from '../heavy-read-gate.js';
import type { ReadThreadPool } from '../read-thread-pool.js';
import type { Engine, EngineLimits, ReadIntent, ReadRunner, ReplicaStatus, Statements, Transaction } from '../engine.js';
import type { CompiledQuery } from '../../sql/compile.js';
import type { EdmModel } from '../../edm/model.js';
import type { MigrationReport } from '../migration.js';
import type { ODataError } from '../../errors/odata-error.js';
import { redactUrl } from '../database-location.js';
import { ACCESS_VERSION_SQL } from '../framework-tables.js';
import { openPostgres, type PostgresDatabase, type PostgresSession } from './postgres-database.js';
import { postgresDialect } from './postgres-dialect.js';
import { isRetryable, postgresError } from './postgres-errors.js';
import { migrateIn, MIGRATION_LOCK, stampStoredEtags } from './postgres-migrate.js';
import { postgresFrameworkTablesSql } from './postgres-framework-tables.js';
import { maintainPostgresChangeCapture } from './postgres-change-capture.js';
import { PostgresReads, type HeavyReads } from './postgres-reads.js';
import { postgresReadThreads, readConnections } from './postgres-read-threads.js';
import { PostgresReplicaReads } from './postgres-replica-reads.js';
import { PostgresReplicas } from './postgres-replicas.js';
import { PostgresWriteBatches } from './postgres-write-batches.js';
import { schemaStamp, storedStamp, writeStamp } from './postgres-schema-stamp.js';
import { compactSetCounts } from './postgres-set-counts.js';
import { partsInOrder, type TransactionPart } from '../transaction-parts.js';

/** An open transaction on its connection. */
interface OpenTransaction {
  readonly session: PostgresSession;
  /** Savepoints open now (their names are by depth). */
  depth: number;
}

/** Statements that answer with promises (PostgreSQL's `db`). */
export type AsyncStatements = { readonly [K in keyof Statements]: (q: CompiledQuery) => Promise<Awaited<ReturnType<Statements[K]>>> };

/** Runs of a transaction that lost to another writer, at most. */
const MAX_ATTEMPTS = 25;
/** A period in which lookups cached from the access tables need no new check (auth/access-cache.ts), ms. */
const CACHE_PERIOD_MS = 250;

/**
 * How long after a write the set counts' rows are folded (postgres-set-counts.ts), ms: the writes of
 * that time are folded by one statement, and a count sums at most about that many writes' rows.
 */
const COMPACT_AFTER_MS = 1_000;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** PostgreSQL (see the file comment). */
export class PostgresEngine implements Engine {
  readonly name = 'postgres';
  readonly dialect = postgresDialect;
  readonly location: string;
  readonly reads: PostgresReads;
  readonly db: AsyncStatements;
  /** The outer transaction a command holds open, which everything joins (see the file comment). */
  private held: OpenTransaction | undefined;
  private readonly writes: PostgresWriteBatches;
  private epoch = 0;
  private epochPeriod = 0;
  /** The access version the last write batch committed with (accessVersionCommitted). */
  private accessVersion: unknown = undefined;
  private compactTimer: NodeJS.Timeout | undefined;
  private compacting: Promise<unknown> | undefined;
  private closed = false;
  /** The reads of requests sent with `Data-Access-Intent: ReadOnly`, when there are read replicas. */
  private readonly replicaReads: ReadRunner | undefined;

  constructor(
    readonly database: PostgresDatabase,
    url: string,
    private readonly limits: EngineLimits,
    private readonly replicas?: PostgresReplicas,
    heavyReads: HeavyReads = {},
    /** The read threads of the heavy reads, closed with the engine. */
    private readonly threads?: ReadThreadPool,
  ) {
    this.location = redactUrl(url);
    this.writes = new PostgresWriteBatches(database, limits.requestTimeoutMs, { sql: ACCESS_VERSION_SQL, committed: (row) => this.accessVersionCommitted(row?.['version']) });
    this.reads = new PostgresReads(database, () => this.held?.session, heavyReads);
    this.replicaReads = replicas === undefined ? undefined : new PostgresReplicaReads(replicas, this.reads);
    const on = (): AsyncStatements => this.held?.session ?? database;
    this.db = {
      get: (q: CompiledQuery) => on().get(q),
      all: (q: CompiledQuery) => on().all(q),
      run: async (q: CompiledQuery) => {
        const n = await on().run(q);
        if (this.held === undefined) this.epoch++;
        return n;
      },
      runReturning: async (q: CompiledQuery) => {
        const row = await on().runReturning(q);
        if (this.held === undefined) this.epoch++;
        return row;
      },
    };
  }

  /** A job of the write batches; inside a command's outer transaction, a savepoint of it. */
  transaction<T>(body: (tx: Transaction) => Promise<T>): Promise<T> {
    const held = this.held;
    if (held !== undefined) return savepoint(held, () => body(statementsOf(held)));
    return this.written(this.writes.run(opened(body)));
  }

  /**
   * One job of the write batches held open across the body's awaits; meanwhile every transaction of
   * the engine is a savepoint of it, and `db` and the reads run on its connection (see the file comment).
   */
  outerTransaction<T>(body: () => Promise<T>): Promise<T> {
    if (this.held !== undefined) return this.transaction(() => body());
    return this.written(
      this.writes.run(async (session) => {
        // A command works between its statements (reading its input) as long as it needs to; a request's
        // batch that stalls that long is ended by the server (postgres-database.ts).
        await session.exec('SET LOCAL idle_in_transaction_session_timeout = 0');
        // Set for each run: the write batches may run the job again (a batch that lost to another writer).
        this.held = { session, depth: 0 };
        try {
          return await body();
        } finally {
          this.held = undefined;
        }
      }),
    );
  }

  /** One job of the write batches; inside a command's outer transaction, the parts one after the other in a savepoint of it. */
  transactionInParts<T>(parts: readonly TransactionPart<T>[]): Promise<T[]> {
    if (this.held !== undefined) return this.transaction(partsInOrder(parts));
    return this.written(this.writes.runInParts(parts.map(opened)));
  }

  /** The value of a committed write transaction; the set counts are folded soon. */
  private async written<T>(committed: Promise<T>): Promise<T> {
    const value = await committed;
    this.compactSoon();
    return value;
  }

  /**
   * The access version as a write batch's COMMIT left it, told before the batch's jobs settle: when it
   * changed since the last batch's, the cache epoch moves, so the requests after such a write (a grant
   * or token changed in this instance) check the version again. Other writes leave the lookups cached:
   * moving the epoch after each of them cost a read of the version per request under writes, up to a
   * fifth of the writes a second.
   */
  private accessVersionCommitted(version: unknown): void {
    if (version === this.accessVersion) return;
    this.accessVersion = version;
    this.epoch++;
  }

  /** Folds the set counts' rows a while after a write (never two at once, never after close()). */
  private compactSoon(): void {
    if (this.compactTimer !== undefined || this.closed) return;
    this.compactTimer = setTimeout(() => {
      this.compactTimer = undefined;
      if (this.compacting !== undefined || this.closed) return;
      // A failed fold changes nothing (one statement); the next write's tries again.
      this.compacting = compactSetCounts(this.database)
        .catch(() => undefined)
        .finally(() => {
          this.compacting = undefined;
        });
    }, COMPACT_AFTER_MS);
    // Background work keeps no process alive on its own.
    this.compactTimer.unref();
  }

  /**
   * The model's tables and the framework's own in one transaction holding an advisory lock: instances
   * that start together take turns, and one that finds the work done changes nothing; instances already
   * serving go on (PostgreSQL's DDL is transactional, so they see the schema before or after, whole).
   * A database whose schema stamp matches the model gets no DDL at all (postgres-schema-stamp.ts), only
   * the stored ETags of rows another program wrote (stampStoredEtags).
   */
  async migrate(model: EdmModel, options: { readonly dryRun?: boolean } = {}): Promise<MigrationReport> {
    // Its DDL locks tables that running instances write: a deadlock with one of them runs it again.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.migrateOnce(model, options);
      } catch (e) {
        if (!isRetryable(e) || attempt === MAX_ATTEMPTS) throw e;
        await pause(Math.random() * Math.min(200, 2 ** attempt));
      }
    }
  }

  private async migrateOnce(model: EdmModel, options: { readonly dryRun?: boolean }): Promise<MigrationReport> {
    const rollback = new Error('dry run');
    let report: MigrationReport | undefined;
    try {
      await this.database.transaction(async (s) => {
        // Waiting for another instance's migration is not a request: no deadline.
        await s.exec('SET LOCAL statement_timeout = 0');
        await s.get({ sql: 'SELECT pg_advisory_xact_lock($1::bigint)', params: [MIGRATION_LOCK] });
        const stamp = schemaStamp(model);
        if ((await storedStamp(s)) === stamp) {
          // No DDL; only the ETags of rows another program wrote since (db/sqlite/sqlite-stored-etags.ts).
          report = { createdTables: [], addedColumns: [], droppedIndexes: [], recountedCounters: [], stampedEtags: await stampStoredEtags(s, model) };
          if (options.dryRun === true) throw rollback;
          return;
        }
        report = await migrateIn(s, model);
        for (const sql of postgresFrameworkTablesSql(model.company.table)) await s.exec(sql);
        await maintainPostgresChangeCapture(s, model);
        await writeStamp(s, stamp);
        if (options.dryRun === true) throw rollback;
      });
    } catch (e) {
      if (e !== rollback) throw e;
    }
    if (report === undefined) throw new Error('migration gave no report');
    return report;
  }

  enterRequest(): void {
    // Every statement sees the latest commit (READ COMMITTED): no snapshot to share.
  }

  leaveRequest(): void {}

  /**
   * A new number every CACHE_PERIOD_MS (another instance's revocation counts within it), after a write
   * batch of this instance that changed the access version (its own counts at once, as on SQLite) and
   * after a statement of `db` outside a transaction.
   */
  get cacheEpoch(): number {
    const period = Math.floor(Date.now() / CACHE_PERIOD_MS);
    if (period !== this.epochPeriod) {
      this.epochPeriod = period;
      this.epoch++;
    }
    return this.epoch;
  }

  /** `readOnly` reads on a healthy replica, when there are any (postgres-replica-reads.ts); all others on the primary. */
  readsFor(intent: ReadIntent): ReadRunner {
    return intent === 'readOnly' && this.replicaReads !== undefined ? this.replicaReads : this.reads;
  }

  replicaStatus(): readonly ReplicaStatus[] {
    return this.replicas?.status() ?? [];
  }

  /** An arrow: callers pass it on unbound (core/handle.ts). */
  readonly mapError = (e: unknown): ODataError | undefined => postgresError(e, this.limits.requestTimeoutMs);

  async close(): Promise<void> {
    this.closed = true;
    if (this.compactTimer !== undefined) clearTimeout(this.compactTimer);
    this.compactTimer = undefined;
    await this.compacting;
    await this.threads?.close();
    await this.replicas?.close();
    await this.database.close();
  }
}

/** `body` on a batch's session: a transaction of its own, whose savepoints nest. */
function opened<T>(body: (tx: Transaction) => Promise<T>): (session: PostgresSession) => Promise<T> {
  return (session) => body(statementsOf({ session, depth: 0 }));
}

/** The statements of an open transaction, nesting savepoints. */
function statementsOf(open: OpenTransaction): Transaction {
  const s = open.session;
  return {
    get: (q) => s.get(q),
    all: (q) => s.all(q),
    run: (q) => s.run(q),
    runReturning: (q) => s.runReturning(q),
    savepoint: (body) => savepoint(open, body),
  };
}

/** Runs `body` in a savepoint of the open transaction: a throw undoes what it did and rethrows. */
async function savepoint<T>(open: OpenTransaction, body: () => Promise<T>): Promise<T> {
  const name = `sp${++open.depth}`;
  try {
    await open.session.exec(`SAVEPOINT "${name}"`);
    try {
      const value = await body();
      await open.session.exec(`RELEASE SAVEPOINT "${name}"`);
      return value;
    } catch (e) {
      await open.session.exec(`ROLLBACK TO SAVEPOINT "${name}"`).catch(() => undefined);
      throw e;
    }
  } finally {
    open.depth--;
  }
}

/** The lambda reads of one server take turns in its read threads, `readWorkers` at once (postgres-reads.ts HeavyReads.lambdas). */
function lambdaGate(limits: EngineLimits): HeavyReadGate {
  return new HeavyReadGate(Math.max(1, limits.readWorkers), limits.userQueuedReads, limits.requestTimeoutMs);
}

/**
 * Opens a PostgreSQL engine on a `postgres://` URL (at most `connections` to it, default 10, read
 * threads' included: postgres-read-threads.ts), with as many to each of `replicaUrls`
 * (`serve --read-replica`); the first statement connects.
 */
export function openPostgresEngine(url: string, limits: EngineLimits, connections?: number, replicaUrls: readonly string[] = [], log: Logger = pino({ level: 'silent' })): PostgresEngine {
  const share = readConnections(connections ?? 10, limits.readWorkers);
  const database = openPostgres(url, { statementTimeoutMs: limits.requestTimeoutMs, readConnections: share.pool });
  const threads = share.threads === 0 ? undefined : postgresReadThreads([url, ...replicaUrls], share, limits, log);
  const replicas =
    replicaUrls.length === 0
      ? undefined
      : new PostgresReplicas(database, replicaUrls, {
          statementTimeoutMs: limits.requestTimeoutMs,
          maxLagMs: limits.maxReplicaLagMs,
          readConnections: share.pool,
          heavy: (at) => (threads === undefined ? {} : { threads: { pool: threads, target: at + 1 }, lambdas: lambdaGate(limits), maxLightWork: limits.maxInlineRows }),
        });
  // Heavy reads hold at most half of the read connections, in threads or on the pool (the gate), so
  // the cheap reads of others always find one.
  const heavyReads: HeavyReads =
    threads === undefined
      ? { gate: new HeavyReadGate(share.heavy, limits.userQueuedReads, limits.requestTimeoutMs), maxLightWork: limits.maxInlineRows }
      : { threads: { pool: threads, target: 0 }, lambdas: lambdaGate(limits), maxLightWork: limits.maxInlineRows };
  return new PostgresEngine(database, url, limits, replicas, heavyReads, threads);
}
