/**
 * The storage seam (issue 17; Kysely's `Dialect`): one object per database engine that the rest of
 * the service receives through its context, holding everything that differs between engines: the SQL
 * dialect of the query layer, the driver (statements, transactions, reads), DDL and migrations, and
 * error mapping. No module outside an engine's folder imports a concrete engine; they use `svc.engine`.
 *
 * Statements return a value or a promise of it (MaybePromise): SQLite answers synchronously, so the
 * request path (authentication, company, path lookups, reads) keeps running without a microtask hop,
 * while PostgreSQL answers with promises. Code off the request path simply awaits either.
 */
import type { CompiledQuery } from '../sql/compile.js';
import type { Dialect } from '../sql/dialect.js';
import type { ODataError } from '../errors/odata-error.js';
import type { ReadOutcome, ReadStep, StepResult } from './read-steps.js';
import type { ReadCost } from '../query/read-cost.js';
import type { MaybePromise } from '../util/maybe-promise.js';
import type { EdmModel } from '../edm/model.js';
import type { MigrationReport } from './migration.js';
import type { ServiceLimits } from '../edm/service-limits.js';
import type { TransactionPart } from './transaction-parts.js';

/** The service settings an engine reads (edm/service-limits.ts): read threads and queues, deadlines. */
export type EngineLimits = Pick<ServiceLimits, 'readWorkers' | 'maxQueuedReads' | 'userQueuedReads' | 'requestTimeoutMs' | 'maxInlineRows' | 'maxReplicaLagMs'>;

/**
 * Where a request's rows may be read (conventions §13): `primary`, so the client reads its own writes;
 * `readOnly`, a GET (or a `$batch` of GETs) sent with `Data-Access-Intent: ReadOnly`, which a read
 * replica may answer, lagging behind the primary.
 */
export type ReadIntent = 'primary' | 'readOnly';

/** A read replica as `/ready` shows it: where it is (never its credentials), its state and its replay lag. */
export interface ReplicaStatus {
  readonly host: string;
  readonly port: number;
  /** `ok`: reads with the header go to it; `lagging`: behind limits.maxReplicaLagMs; `down`: it does not answer, or is no standby. */
  readonly state: 'ok' | 'lagging' | 'down';
  /** Its replay lag as last measured, ms; null when unknown (down, or never measured). */
  readonly lagMs: number | null;
}

/** The engines the service runs on. */
export type EngineName = 'sqlite' | 'postgres';

export type { MaybePromise } from '../util/maybe-promise.js';

/** A read ready to run. */
export interface ReadRequest {
  /** The statements, compiled for the event loop. */
  readonly steps: readonly ReadStep[];
  /** The same statements compiled cancellable, for a read thread (compiled only when one is used). */
  readonly cancellable: () => readonly ReadStep[];
  readonly cost: ReadCost;
  /** Who asked (the user id): read threads share their queue fairly among owners. */
  readonly owner?: string;
}

/** A row as a statement returns it, by column alias. */
export type DbRow = Record<string, unknown>;

/** Running compiled statements. */
export interface Statements {
  /** The first row, if any. */
  get(q: CompiledQuery): MaybePromise<DbRow | undefined>;
  /** Every row. */
  all(q: CompiledQuery): MaybePromise<DbRow[]>;
  /** A statement that returns no rows; the number of rows it changed. */
  run(q: CompiledQuery): MaybePromise<number>;
  /** A write with RETURNING: the first row it wrote as it returns it, undefined when it changed none. */
  runReturning(q: CompiledQuery): MaybePromise<DbRow | undefined>;
}

/** The statements of a transaction, which can also nest one. */
export interface Transaction extends Statements {
  /** Runs `body` in a savepoint of the transaction: a throw undoes what it did (and rethrows), the transaction goes on. */
  savepoint<T>(body: () => Promise<T>): Promise<T>;
}

/** Where a request's reads run (db/sqlite/sqlite-read-executor.ts for SQLite). */
export interface ReadRunner {
  run(read: ReadRequest): StepResult[] | Promise<StepResult[]>;
  /** Several reads in one snapshot (a batch's GETs that follow one another); each read's failure is its own outcome. */
  runTogether(reads: readonly ReadRequest[]): ReadOutcome[] | Promise<ReadOutcome[]>;
  /** The work of the reads evaluated in full, added up (query/read-cost.ts fullWork), priced with the tables' current sizes. */
  fullWork(reads: readonly ReadRequest[]): number | Promise<number>;
}

/** A database engine (see the file comment). */
export interface Engine {
  readonly name: EngineName;
  /** Where the data lives, for messages: the file, or the URL without its password. */
  readonly location: string;
  /** The SQL the query layer builds for this engine (sql/dialect.ts). */
  readonly dialect: Dialect;
  /** Statements each on its own (start-up, lookups, the command line, background work); inside outerTransaction, statements of it. */
  readonly db: Statements;
  /**
   * Runs `body` in one transaction and commits it; a throw rolls back everything it did. `body` works
   * through `tx`, and nests a transaction with `tx.savepoint`: a call of `transaction`, or a statement
   * of `db`, from inside a body joins it on SQLite (one connection) but not on PostgreSQL, where it
   * would be a transaction of its own waiting for the batch its caller holds
   * (db/postgres/postgres-engine.ts); inside outerTransaction both join it on both engines (a
   * transaction as a savepoint of it).
   * On SQLite the transactions that become ready in one event-loop turn share a COMMIT
   * (db/sqlite/sqlite-group-commit.ts); on PostgreSQL those of one instance form batches that take turns with the
   * other instances' (db/postgres/postgres-write-batches.ts).
   */
  transaction<T>(body: (tx: Transaction) => Promise<T>): Promise<T>;
  /**
   * Runs `parts` in order in one transaction (a `$batch` change set), as `transaction` runs one body:
   * all commit, or the first that throws rolls all back and the promise rejects with
   * TransactionPartError (db/transaction-parts.ts). The result is that of running them one after the
   * other; PostgreSQL's write batches send a part's statements without waiting for the answers of the
   * part before it when that part is known to send no more.
   */
  transactionInParts<T>(parts: readonly TransactionPart<T>[]): Promise<T[]>;
  /**
   * Runs `body` in one transaction held open across its awaits (files read between batches), for a
   * command that is the only user of its service (seed, import --atomic): the transactions it asks for
   * are part of it. COMMIT when it resolves, ROLLBACK when it throws.
   */
  outerTransaction<T>(body: () => Promise<T>): Promise<T>;
  /** A request's reads: on the event loop or in read threads with a deadline (SQLite), on the pool (PostgreSQL). */
  readonly reads: ReadRunner;
  /**
   * The reads of a request with `intent`: `reads`, except that PostgreSQL with read replicas answers a
   * `readOnly` read from a healthy replica, and from the primary when none is (or the replica fails).
   */
  readsFor(intent: ReadIntent): ReadRunner;
  /** The read replicas and their states (none on SQLite, or without `--read-replica`). */
  replicaStatus(): readonly ReplicaStatus[];
  /**
   * Brings the tables in line with the model and creates the framework's own (outbox, webhook
   * delivery, users and tokens), in one transaction under a lock, so instances starting together
   * migrate once and instances already running keep writing. `dryRun` rolls it all back (`ecn-odata check`).
   */
  migrate(model: EdmModel, options?: { readonly dryRun?: boolean }): Promise<MigrationReport>;
  /** A request starts: SQLite lets the requests of one event-loop turn share a read snapshot (db/sqlite/sqlite-shared-reads.ts). */
  enterRequest(joinTurn: boolean): void;
  /** A request ended (see enterRequest). */
  leaveRequest(): void;
  /**
   * A number that stays the same while lookups cached from the access tables need no new check against
   * the database (auth/access-cache.ts): SQLite the shared read snapshot, PostgreSQL a short period;
   * -1 asks for a check every time.
   */
  readonly cacheEpoch: number;
  /** The OData error a driver error stands for (a constraint the checks did not catch, a lock timeout), if any. */
  mapError(e: unknown): ODataError | undefined;
  /** Closes every connection and thread. */
  close(): Promise<void>;
}
