/**
 * The PostgreSQL connections (node-postgres): a pool whose statements answer with promises, each
 * compiled statement prepared once per connection (named by its text), transactions on one pooled
 * connection, and values converted to the stored forms SQLite gives (postgres-types.ts).
 */
import pg from 'pg';
import { parse } from 'pg-connection-string';
import type { CompiledQuery } from '../../sql/compile.js';
import type { DbRow, Statements } from '../engine.js';
import { isUnavailable, markDriverError } from './postgres-errors.js';
import { DatabaseLocationError, redactUrl } from '../database-location.js';
import { postgresTypes } from './postgres-types.js';

/** Names of prepared statements by SQL text, shared by every connection (each prepares a name on first use). */
const statementNames = new Map<string, string>();
/** Past this many distinct texts, new ones run unnamed (parsed each time) instead of growing every connection's cache. */
const MAX_NAMED = 5000;

function queryConfig(q: CompiledQuery): pg.QueryConfig {
  let name = statementNames.get(q.sql);
  if (name === undefined && statementNames.size < MAX_NAMED) {
    name = `s${statementNames.size}`;
    statementNames.set(q.sql, name);
  }
  return { name, text: q.sql, values: q.params as unknown[] };
}

const rethrowMarked = (e: unknown): never => {
  throw markDriverError(e);
};

/** A statement on a connection or the pool; a failure is marked as the driver's (postgres-errors.ts). */
export function driverQuery(on: pg.ClientBase | pg.Pool, config: pg.QueryConfig | pg.QueryArrayConfig | string): Promise<pg.QueryResult> {
  // The array form (rowMode 'array') is the same call; only its rows' type differs.
  return on.query(config as pg.QueryConfig).catch(rethrowMarked);
}

/** A connection of the pool held by the caller; a failure to get one is marked as the driver's. */
export function driverConnect(pool: pg.Pool): Promise<pg.PoolClient> {
  return pool.connect().catch(rethrowMarked);
}

/** Isolation of a transaction (PostgreSQL's default is READ COMMITTED). */
export type Isolation = 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';

/** Statements on one connection (inside a transaction, or a session the caller holds). */
export class PostgresSession implements Statements {
  /**
   * @param client the connection
   * @param observe told the text of each statement before it is sent (the write batches count a job's statements)
   */
  constructor(
    readonly client: pg.ClientBase,
    private readonly observe?: (sql: string) => void,
  ) {}

  private query(config: pg.QueryConfig | string): Promise<pg.QueryResult> {
    this.observe?.(typeof config === 'string' ? config : config.text);
    return driverQuery(this.client, config);
  }

  async get(q: CompiledQuery): Promise<DbRow | undefined> {
    return (await this.query(queryConfig(q))).rows[0] as DbRow | undefined;
  }

  async all(q: CompiledQuery): Promise<DbRow[]> {
    return (await this.query(queryConfig(q))).rows as DbRow[];
  }

  async run(q: CompiledQuery): Promise<number> {
    return (await this.query(queryConfig(q))).rowCount ?? 0;
  }

  async runReturning(q: CompiledQuery): Promise<DbRow | undefined> {
    return this.get(q);
  }

  /** Every row as an array of its column values, in column order. */
  async rows(q: CompiledQuery): Promise<unknown[][]> {
    return (await this.query({ ...queryConfig(q), rowMode: 'array' } as pg.QueryConfig)).rows as unknown[][];
  }

  /** Runs SQL text without parameters (DDL; several statements allowed). */
  async exec(sql: string): Promise<void> {
    await this.query(sql);
  }
}

/** Options of a pool. */
export interface PostgresPoolOptions {
  /** Connections at most, the write batches' one among them (default 10). */
  readonly max?: number;
  /** Connections of the pool of reads (default `max` - 1; fewer when read threads have the others). */
  readonly readConnections?: number;
  /** Ends any statement that runs longer (PostgreSQL's statement_timeout, SQLSTATE 57014); 0 for none. */
  readonly statementTimeoutMs?: number;
  /** Shown in pg_stat_activity. */
  readonly applicationName?: string;
}

/** The pool, and statements that each take any connection of it. */
export class PostgresDatabase implements Statements {
  /**
   * @param pool the connections of reads, statements on their own and sessions
   * @param writePool the write batches' one connection, in pipeline mode (postgres-write-batches.ts)
   */
  constructor(
    readonly pool: pg.Pool,
    readonly writePool: pg.Pool,
  ) {}

  async get(q: CompiledQuery): Promise<DbRow | undefined> {
    return (await driverQuery(this.pool, queryConfig(q))).rows[0] as DbRow | undefined;
  }

  async all(q: CompiledQuery): Promise<DbRow[]> {
    return (await driverQuery(this.pool, queryConfig(q))).rows as DbRow[];
  }

  async run(q: CompiledQuery): Promise<number> {
    return (await driverQuery(this.pool, queryConfig(q))).rowCount ?? 0;
  }

  async runReturning(q: CompiledQuery): Promise<DbRow | undefined> {
    return this.get(q);
  }

  /** Every row as an array of its column values, in column order. */
  async rows(q: CompiledQuery): Promise<unknown[][]> {
    return (await driverQuery(this.pool, { ...queryConfig(q), rowMode: 'array' })).rows as unknown[][];
  }

  /** Runs SQL text without parameters on any connection (DDL; several statements allowed). */
  async exec(sql: string): Promise<void> {
    await driverQuery(this.pool, sql);
  }

  /** Runs `fn` on one connection held for it. */
  async session<T>(fn: (s: PostgresSession) => Promise<T>): Promise<T> {
    const client = await driverConnect(this.pool);
    let broken: Error | undefined;
    try {
      return await fn(new PostgresSession(client));
    } catch (e) {
      if (connectionEnded(e)) broken = e;
      throw e;
    } finally {
      client.release(broken);
    }
  }

  /** Runs `body` in one transaction on one connection: COMMIT when it resolves, ROLLBACK when it throws. */
  async transaction<T>(body: (tx: PostgresSession) => Promise<T>, options: { readonly isolation?: Isolation; readonly readOnly?: boolean } = {}): Promise<T> {
    return this.session(async (s) => {
      const mode = `${options.isolation === undefined ? '' : ` ISOLATION LEVEL ${options.isolation}`}${options.readOnly === true ? ' READ ONLY' : ''}`;
      await s.exec(`BEGIN${mode}`);
      try {
        const result = await body(s);
        await s.exec('COMMIT');
        return result;
      } catch (e) {
        await s.exec('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.writePool.end()]);
  }
}

/**
 * Every statement is prepared once per connection with its values as parameters, and PostgreSQL's
 * default (plan_cache_mode auto) planned most of ours again at every execution: the generic plan of a
 * page with `LIMIT $n` looks dearer than the custom ones, though it is the same plan. Planning cost
 * up to a quarter of the server's CPU per read. Such a plan does not know a LIKE pattern, so
 * `startswith` also states its prefix's range (query/plan-expression.ts), which narrows an index as the
 * pattern did; and one plan serves a value with few rows and one with many alike. It is a start-up
 * option of each connection (as statement_timeout is), so no statement runs before it.
 */
const GENERIC_PLANS = '-c plan_cache_mode=force_generic_plan';

/** The settings in a `postgres://` URL; a DatabaseLocationError that says how to write one when it cannot be read. */
function readUrl(url: string): ReturnType<typeof parse> {
  try {
    // node-postgres keeps a `%` that starts no escape as it is, so `pa%ZZ` would reach the server as
    // a password no one wrote: refused here, as a URL that cannot be read.
    if (/%(?![0-9A-Fa-f]{2})/.test(url)) throw new Error('a % that is not followed by two hexadecimal digits; write % itself as %25');
    return parse(url);
  } catch (e) {
    const reason = String((e as { message?: unknown } | null)?.message ?? e);
    throw new DatabaseLocationError(
      `'${redactUrl(url)}' is not a PostgreSQL URL that can be read (${reason}): write it as postgres://user:password@host:5432/database, with any special character of the user name or password percent-encoded (@ as %40, : as %3A, / as %2F, # as %23).`,
    );
  }
}

/**
 * true when the connection a statement failed on must not be given back to the pool: lost
 * mid-protocol (node-postgres's errors without a SQLSTATE), or ended by the server (a FATAL or PANIC
 * error such as 57P01, or a connection-class SQLSTATE). The pool would notice the end itself only
 * once the socket's close arrives, a turn later, and could hand the connection to the next waiter.
 */
export function connectionEnded(e: unknown): e is Error {
  if (!(e instanceof Error)) return false;
  if (!('code' in e)) return true;
  const severity = (e as { severity?: unknown }).severity;
  return severity === 'FATAL' || severity === 'PANIC' || isUnavailable(e);
}

/** Opens a pool on a `postgres://` URL (connections are made on first use). */
export function openPostgres(url: string, options: PostgresPoolOptions = {}): PostgresDatabase {
  const timeout = options.statementTimeoutMs !== undefined && options.statementTimeoutMs > 0 ? options.statementTimeoutMs : undefined;
  // The URL read as node-postgres reads a connectionString (its settings win over these defaults, its
  // `ssl` strings such as no-verify included), so that its `options` (or PGOPTIONS, which node-postgres
  // reads only when no options are given) can be kept: the generic plans come first, so the URL's own
  // plan_cache_mode wins.
  const fromUrl = readUrl(url);
  const startup = fromUrl.options ?? process.env['PGOPTIONS'];
  const config = {
    application_name: options.applicationName ?? 'ecn-odata',
    ...(timeout === undefined ? {} : { statement_timeout: timeout }),
    ...fromUrl,
    options: startup === undefined || startup.trim() === '' ? GENERIC_PLANS : `${GENERIC_PLANS} ${startup}`,
    // One of the connections is the write batches' (below).
    max: options.readConnections ?? Math.max(1, (options.max ?? 10) - 1),
    types: postgresTypes,
    // A server that does not answer a connect (a host that drops packets) fails the request about its
    // deadline instead of after the kernel's minutes; a wait that long for a busy pool's connection fails
    // it too (postgres-errors.ts tells the two apart). At least 5 s: a connect on a busy machine is slow.
    connectionTimeoutMillis: Math.max(timeout ?? 10_000, 5_000),
    // Keep-alive finds idle pooled connections whose server went away without closing them. (A
    // statement already sent to such a server waits for the kernel to give up on the socket: a
    // client-side query_timeout would also end the migration's long statements, which run without a
    // deadline.)
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  } as pg.PoolConfig;
  const pool = new pg.Pool(config);
  // The write batches' connection sends a statement without waiting for the answers to those before it
  // (node-postgres's pipeline mode; postgres-write-batches.ts), which the reads' connections must not
  // do (a failed statement would fail the ones queued behind it). Batches run one at a time, so one.
  // A batch holds every instance's write turn: one whose job stalls between its statements (work that
  // never ends, not a statement) has its session ended by the server after the request time limit
  // (SQLSTATE 25P03), which gives the turn to the others; statement_timeout bounds only statements.
  const writePool = new pg.Pool({ ...(timeout === undefined ? {} : { idle_in_transaction_session_timeout: timeout }), ...config, max: 1, pipeline: true } as pg.PoolConfig);
  // A connection the server drops (a restart, a failover, an administrator's pg_terminate_backend) must
  // not end the process. The pool listens on its idle connections only; a connection in use (a
  // transaction, a write batch) emits the error with no listener, which Node throws: every connection
  // gets one for its whole life. Nothing is lost: the statements waiting on it fail with the error,
  // and the pool does not hand out a connection that ended.
  for (const p of [pool, writePool]) {
    p.on('error', () => undefined);
    p.on('connect', (client) => client.on('error', () => undefined));
  }
  return new PostgresDatabase(pool, writePool);
}
