/**
 * SQLite as an engine (db/engine.ts): one better-sqlite3 connection answering synchronously (the
 * request path's lookups and reads without a microtask hop), write transactions group-committed
 * (db/group-commit.ts), and reads priced by the cost model and run on the event loop or in read threads
 * with a deadline (db/read-executor.ts, db/read-pool.ts). The embedded default: `npm start` needs no server.
 */
import type { Logger } from 'pino';
import type { Engine, Statements } from '../engine.js';
import { openDatabase, type Database } from '../database.js';
import { ReadExecutor } from '../read-executor.js';
import { ReadPool } from '../read-pool.js';
import { sqliteDialect } from '../../sql/sqlite-dialect.js';
import { sqliteError } from './sqlite-errors.js';
import type { ServiceLimits } from '../../edm/service-limits.js';

/** SQLite (see the file comment). */
export class SqliteEngine implements Engine {
  readonly name = 'sqlite';
  readonly dialect = sqliteDialect;
  readonly reads: ReadExecutor;
  private readonly pool: ReadPool | undefined;

  /**
   * @param database the connection (db/database.ts)
   * @param file its file, for the read threads; ':memory:' has none (every read on the event loop)
   */
  constructor(
    readonly database: Database,
    file: string,
    limits: Pick<ServiceLimits, 'readWorkers' | 'maxQueuedReads' | 'requestTimeoutMs' | 'maxInlineRows'>,
    log: Logger,
  ) {
    this.pool =
      file !== ':memory:' && limits.readWorkers > 0
        ? new ReadPool({ file, threads: limits.readWorkers, maxQueued: limits.maxQueuedReads, timeoutMs: limits.requestTimeoutMs }, log)
        : undefined;
    this.reads = new ReadExecutor(database, this.pool, limits.maxInlineRows);
  }

  /** Statements answer synchronously. */
  get db(): Statements {
    return this.database;
  }

  transaction<T>(body: (tx: Statements) => Promise<T>): Promise<T> {
    return this.database.sharedTransaction(() => body(this.database));
  }

  mapError(e: unknown): ReturnType<Engine['mapError']> {
    return sqliteError(e);
  }

  async close(): Promise<void> {
    await this.pool?.close();
    this.database.close();
  }
}

/** Opens a SQLite engine on `file` (created when missing) or ':memory:'. */
export function openSqliteEngine(file: string, limits: ConstructorParameters<typeof SqliteEngine>[2], log: Logger): SqliteEngine {
  return new SqliteEngine(openDatabase(file), file, limits, log);
}
