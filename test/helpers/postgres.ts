/**
 * A database of its own for a test file on the PostgreSQL server the run started
 * (test/postgres/global-setup.mjs): made with an ICU default collation, as managed servers are set
 * up with a language's order, so the code-point order the service needs has to come from its own DDL.
 */
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { openPostgres, type PostgresDatabase, type PostgresPoolOptions } from '../../src/db/postgres/postgres-database.js';

interface ServerInfo {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
}

function server(): ServerInfo {
  const info = process.env['ECN_TEST_POSTGRES'];
  if (info === undefined) throw new Error('No PostgreSQL server for the tests: `npm run test:postgres` starts one (jest.postgres.config.js, test/postgres/global-setup.mjs); list a suite that needs it in POSTGRES_SUITES of jest.config.js.');
  return JSON.parse(info) as ServerInfo;
}

/** A URL of the test server, for a database. */
export function postgresUrl(database: string): string {
  const s = server();
  return `postgres://${encodeURIComponent(s.user)}:${encodeURIComponent(s.password)}@${s.host}:${s.port}/${database}`;
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: postgresUrl('postgres') });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A test database: its URL, a pool on it, and how to drop it. */
export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  readonly db: PostgresDatabase;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
}

/** true on the run of the tests against PostgreSQL (jest.postgres.config.js project "postgres"): test services open a database there. */
export function onPostgres(): boolean {
  return process.env['ECN_TEST_ENGINE'] === 'postgres';
}

/** An empty database for a service to open: its URL, and how to drop it. */
export interface EmptyDatabase {
  readonly name: string;
  readonly url: string;
  /** Drops the database (closing whatever is still connected to it). */
  drop(): Promise<void>;
}

/** Creates an empty database (`prefix` names it, for pg_stat_activity). */
export async function createEmptyDatabase(prefix: string): Promise<EmptyDatabase> {
  const name = `${prefix.toLowerCase().replace(/[^a-z0-9_]/g, '_')}_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'`));
  return { name, url: postgresUrl(name), drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined) };
}

/** Creates an empty database and a pool on it. */
export async function createTestDatabase(prefix: string, options: PostgresPoolOptions = {}): Promise<TestDatabase> {
  const empty = await createEmptyDatabase(prefix);
  const db = openPostgres(empty.url, options);
  return {
    name: empty.name,
    url: empty.url,
    db,
    async drop() {
      await db.close();
      await empty.drop();
    },
  };
}
