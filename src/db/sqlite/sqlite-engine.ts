/**
 * SQLite as an engine (db/engine.ts): one better-sqlite3 connection answering synchronously (the
 * request path's lookups and reads without a microtask hop), write transactions group-committed
 * (db/sqlite/sqlite-group-commit.ts) and taking the write lock when they begin, so several processes on one file
 * wait for each other instead of failing (conventions §10), and reads priced by the cost model and run on the event loop or in read threads
 * with a deadline (db/sqlite/sqlite-read-executor.ts, db/sqlite/sqlite-read-pool.ts). The embedded default: `npm start` needs no server.
 */
import type { Logger } from 'pino';
import type { Engine, EngineLimits, ReplicaStatus, Statements, Transaction } from '../engine.js';
import { openDatabase, type Database } from './sqlite-database.js';
import { ReadExecutor } from './sqlite-read-executor.js';
import { ReadPool } from './sqlite-read-pool.js';
import { sqliteDialect } from './sqlite-dialect.js';
import { isBusy, sqliteError } from './sqlite-errors.js';
import type { EdmModel } from '../../edm/model.js';
import { migrate } from './sqlite-migrate.js';
import type { MigrationReport } from '../migration.js';
import { maintainSqliteChangeCapture } from './sqlite-change-capture.js';
import { createAuthTables, createDeliveryTables, createOutboxTable, createUserRequestsTable } from './sqlite-framework-tables.js';
import { partsInOrder, type TransactionPart } from '../transaction-parts.js';

/** SQLite (see the file comment). */
export class SqliteEngine implements Engine {
  readonly name = 'sqlite';
  readonly dialect = sqliteDialect;
  readonly reads: ReadExecutor;
  private readonly pool: ReadPool | undefined;
  private readonly tx: Transaction;

  /**
   * @param database the connection (db/sqlite/sqlite-database.ts)
   * @param file its file, for the read threads; ':memory:' has none (every read on the event loop)
   */
  constructor(
    readonly database: Database,
    readonly location: string,
    limits: EngineLimits,
    log: Logger,
  ) {
    this.pool =
      location !== ':memory:' && limits.readWorkers > 0
        ? new ReadPool({ file: location, threads: limits.readWorkers, maxQueued: limits.maxQueuedReads, maxQueuedPerOwner: limits.userQueuedReads, timeoutMs: limits.requestTimeoutMs }, log)
        : undefined;
    this.reads = new ReadExecutor(database, this.pool, limits.maxInlineRows);
    this.tx = sqliteTransaction(database);
  }

  /** Statements answer synchronously. */
  get db(): Statements {
    return this.database;
  }

  transaction<T>(body: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.database.sharedTransaction(() => body(this.tx));
  }

  /** The parts one after the other in one body of group commit. */
  transactionInParts<T>(parts: readonly TransactionPart<T>[]): Promise<T[]> {
    return this.transaction(partsInOrder(parts));
  }

  /** Opened on the connection itself: the batches of group commit that run meanwhile are part of it. */
  outerTransaction<T>(body: () => Promise<T>): Promise<T> {
    return this.immediate(body, true);
  }

  /**
   * One IMMEDIATE transaction takes the write lock first (waiting out other writers up to the busy
   * timeout), so a second instance starting while the first writes migrates after it, not beside it.
   */
  migrate(model: EdmModel, options: { readonly dryRun?: boolean } = {}): Promise<MigrationReport> {
    return this.immediate(() => {
      const report = migrate(this.database, model);
      createOutboxTable(this.database);
      createDeliveryTables(this.database);
      createAuthTables(this.database, model.company.table);
      createUserRequestsTable(this.database);
      maintainSqliteChangeCapture(this.database, model);
      return report;
    }, options.dryRun !== true);
  }

  /** Runs `body` in an IMMEDIATE transaction on the connection; COMMIT (or, when not `commit`, ROLLBACK) when it returns, ROLLBACK when it throws. */
  private async immediate<T>(body: () => T | Promise<T>, commit: boolean): Promise<T> {
    const raw = this.database.raw;
    await beginImmediate(raw);
    try {
      const value = await body();
      raw.exec(commit ? 'COMMIT' : 'ROLLBACK');
      return value;
    } catch (e) {
      if (raw.inTransaction) raw.exec('ROLLBACK');
      throw e;
    }
  }

  enterRequest(joinTurn: boolean): void {
    this.database.enterRequest(joinTurn);
  }

  leaveRequest(): void {
    this.database.leaveRequest();
  }

  get cacheEpoch(): number {
    return this.database.readSnapshot;
  }

  /** SQLite has no replicas: every intent reads here (conventions §13: it ignores the header). */
  readsFor(): ReadExecutor {
    return this.reads;
  }

  replicaStatus(): readonly ReplicaStatus[] {
    return [];
  }

  mapError(e: unknown): ReturnType<Engine['mapError']> {
    return sqliteError(e);
  }

  async close(): Promise<void> {
    await this.pool?.close();
    this.database.close();
  }
}

/**
 * The statements of the transaction group commit opened (one connection, one writer at a time), with
 * savepoints by depth: `SAVEPOINT sp<n>` / `RELEASE`, or `ROLLBACK TO` on a throw.
 */
function sqliteTransaction(database: Database): Transaction {
  let depth = 0;
  return {
    get: (q) => database.get(q),
    all: (q) => database.all(q),
    run: (q) => database.run(q),
    runReturning: (q) => database.runReturning(q),
    async savepoint<T>(body: () => Promise<T>): Promise<T> {
      const name = `sp${++depth}`;
      database.exec(`SAVEPOINT "${name}"`);
      try {
        const value = await body();
        database.exec(`RELEASE "${name}"`);
        return value;
      } catch (e) {
        if (database.inTransaction) {
          database.exec(`ROLLBACK TO "${name}"`);
          database.exec(`RELEASE "${name}"`);
        }
        throw e;
      } finally {
        depth--;
      }
    },
  };
}

/** Pauses (ms) before the next BEGIN IMMEDIATE of a migration that found the write lock held past the busy timeout. */
const MIGRATION_RETRY_PAUSES_MS = [100, 500, 1000, 2000];

/**
 * BEGIN IMMEDIATE, tried again after a pause while another process holds the write lock past the busy
 * timeout (a burst of writes from the instances already serving), then the busy error.
 */
async function beginImmediate(raw: Database['raw']): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      raw.exec('BEGIN IMMEDIATE');
      return;
    } catch (e) {
      const ms = MIGRATION_RETRY_PAUSES_MS[i];
      if (!isBusy(e) || ms === undefined) throw e;
      await new Promise((resolve) => setTimeout(resolve, ms));
    }
  }
}

/** Opens a SQLite engine on `file` (created when missing) or ':memory:'. */
export function openSqliteEngine(file: string, limits: EngineLimits, log: Logger): SqliteEngine {
  return new SqliteEngine(openDatabase(file), file, limits, log);
}
