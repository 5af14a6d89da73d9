/**
 * The SQLite connection: opened with WAL and foreign keys on, a prepared-statement cache keyed by
 * SQL text, and a statement counter (tests use it to prove a read runs a constant number of queries).
 */
import BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery } from '../../sql/compile.js';
import { registerSqliteFunctions } from './sqlite-functions.js';
import { GroupCommit } from './sqlite-group-commit.js';
import { SharedReads } from './sqlite-shared-reads.js';

/** A row as SQLite returns it. */
export type DbRow = Record<string, unknown>;

/** The database handle the rest of the code uses; only `db/` touches better-sqlite3 directly. */
export class Database {
  private readonly cache = new Map<string, BetterSqlite3.Statement>();
  /** Statements in raw mode (rows as arrays), kept apart so no statement ever switches mode. */
  private readonly rawCache = new Map<string, BetterSqlite3.Statement>();
  /** Number of statements executed since opening (for N+1 tests). */
  statementCount = 0;

  private readonly group: GroupCommit;
  private readonly reads: SharedReads;

  constructor(private readonly conn: BetterSqlite3.Database) {
    this.reads = new SharedReads(conn);
    this.group = new GroupCommit(() => this.raw);
  }

  /** The better-sqlite3 connection, for what this class does not wrap; ends the shared read snapshot first (the caller may write). */
  get raw(): BetterSqlite3.Database {
    this.reads.end();
    return this.conn;
  }

  /** A request starts: its reads share the read snapshot of this event-loop turn, or a new one unless `joinTurn` (sqlite-shared-reads.ts). */
  enterRequest(joinTurn: boolean): void {
    this.group.newTask();
    this.reads.enter(joinTurn);
  }

  /** The number of the open shared read snapshot, -1 when none is open (sqlite-shared-reads.ts). */
  get readSnapshot(): number {
    return this.reads.snapshot;
  }

  /** A request ended (see enterRequest). */
  leaveRequest(): void {
    this.reads.leave();
  }

  /** Runs a query and returns every row. */
  all(q: CompiledQuery): DbRow[] {
    this.reads.beforeRead();
    this.statementCount++;
    return this.prepare(q.sql).all(...q.params) as DbRow[];
  }

  /** Runs a query and returns every row as an array of its column values, in column order. */
  rows(q: CompiledQuery): unknown[][] {
    this.reads.beforeRead();
    this.statementCount++;
    return this.prepare(q.sql, this.rawCache).all(...q.params) as unknown[][];
  }

  /**
   * Runs a query and yields its rows one at a time as arrays of column values: large results are
   * never held whole (stopping early ends the statement). No other statement may run until it ends.
   */
  iterateRows(q: CompiledQuery): IterableIterator<unknown[]> {
    this.reads.beforeRead();
    this.statementCount++;
    return this.prepare(q.sql, this.rawCache).iterate(...q.params) as IterableIterator<unknown[]>;
  }

  /** Runs a query and yields its rows one at a time as objects (stopping early ends the statement). */
  iterate(q: CompiledQuery): IterableIterator<DbRow> {
    this.reads.beforeRead();
    this.statementCount++;
    return this.prepare(q.sql).iterate(...q.params) as IterableIterator<DbRow>;
  }

  /** Runs a query and returns the first row, if any. */
  get(q: CompiledQuery): DbRow | undefined {
    this.reads.beforeRead();
    this.statementCount++;
    return this.prepare(q.sql).get(...q.params) as DbRow | undefined;
  }

  /** Runs a statement that returns no rows; gives the number of changed rows. */
  run(q: CompiledQuery): number {
    this.reads.end();
    this.statementCount++;
    return this.prepare(q.sql).run(...q.params).changes;
  }

  /** Runs a write with RETURNING; gives the first row it returns (a write: ends the shared read snapshot first, as run does). */
  runReturning(q: CompiledQuery): DbRow | undefined {
    this.reads.end();
    this.statementCount++;
    return this.prepare(q.sql).get(...q.params) as DbRow | undefined;
  }

  /** true while a transaction is open on the connection. */
  get inTransaction(): boolean {
    return this.conn.inTransaction;
  }

  /** Executes DDL text (no parameters). */
  exec(sql: string): void {
    this.raw.exec(sql); // raw ends the read snapshot
  }

  /**
   * Runs `fn` in one synchronous transaction (better-sqlite3 refuses async callbacks: a transaction
   * must never stay open across event-loop ticks). A thenable result is a programming error.
   */
  transaction<T>(fn: () => T): T {
    return this.raw.transaction(() => { // raw ends the read snapshot
      const result = fn();
      if (result !== null && typeof result === 'object' && typeof (result as { then?: unknown }).then === 'function') {
        throw new Error('A transaction callback must be synchronous; it returned a promise.');
      }
      return result;
    })();
  }

  /**
   * Runs `fn` in a transaction shared with the other write transactions that become ready in this
   * turn of the event loop (each in its own savepoint; see sqlite-group-commit.ts). `fn` may be async as long
   * as it awaits only this connection's statements. Settles after the COMMIT.
   */
  sharedTransaction<T>(fn: () => T | Promise<T>): Promise<T> {
    return this.group.run(fn);
  }

  /** Closes the connection. */
  close(): void {
    this.cache.clear();
    this.rawCache.clear();
    this.reads.end();
    if (this.conn.open) this.conn.close();
  }

  private prepare(sql: string, cache = this.cache): BetterSqlite3.Statement {
    let stmt = cache.get(sql);
    if (stmt === undefined) {
      stmt = this.conn.prepare(sql);
      if (cache === this.rawCache) stmt.raw(true);
      if (cache.size > 2000) cache.clear();
      cache.set(sql, stmt);
    }
    return stmt;
  }
}

/**
 * Empties sqlite_stat4 (ANALYZE's samples of index values) and keeps sqlite_stat1 (row counts and
 * selectivity per index). Every statement here is shared by all requests of a shape and carries its
 * values as parameters; with samples present, SQLite (built with STAT4, as better-sqlite3 is) lets
 * the plan depend on the bound values and re-prepares the statement each time they are bound, which
 * is every run: about 30 µs of a `$top=1` page. SQLite's own switch for this
 * (SQLITE_DBCONFIG_ENABLE_QPSG) is not reachable from better-sqlite3.
 */
function forgetValueSamples(raw: BetterSqlite3.Database): void {
  const stat4 = raw.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_stat4'").get();
  if (stat4 === undefined) return;
  const samples = raw.prepare('SELECT count(*) AS n FROM sqlite_stat4').get() as { n: number };
  if (samples.n === 0) return;
  raw.exec('DELETE FROM sqlite_stat4');
  // Reloads the statistics the planner holds in memory from the tables.
  raw.exec('ANALYZE sqlite_schema');
}

/**
 * Opens (creating if needed) a database file, or `:memory:`: WAL, foreign keys on, case-sensitive
 * LIKE (OData's contains/startswith/endswith are case-sensitive), and the functions the SQLite dialect
 * calls for Unicode case mapping and regular expressions.
 */
export function openDatabase(file: string): Database {
  const raw = new BetterSqlite3(file);
  if (file !== ':memory:') raw.pragma('journal_mode = WAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('case_sensitive_like = ON');
  // The statement journal in memory instead of a temporary file: a statement on a table with triggers
  // (counters, kept entity JSON) inside a longer transaction copies each page it changes again there
  // first, and as a file those copies were more than half of an INSERT's time.
  raw.pragma('temp_store = MEMORY');
  forgetValueSamples(raw);
  registerSqliteFunctions(raw);
  return new Database(raw);
}
