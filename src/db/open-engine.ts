/**
 * Chooses the engine from `--db` (conventions §10): a `postgres://` (or `postgresql://`) URL opens
 * PostgreSQL, anything without a URL scheme is a SQLite file (or `:memory:`), and any other scheme is
 * refused with a message that says what is accepted, rather than taken as a file name. PostgreSQL's
 * driver is loaded only when asked for, so the embedded default does not pay for it.
 */
import type { Logger } from 'pino';
import type { Engine, EngineLimits } from './engine.js';
import { openSqliteEngine } from './sqlite/sqlite-engine.js';

/** Where the data lives, as `--db` names it. */
export type DatabaseLocation = { readonly kind: 'sqlite'; readonly file: string } | { readonly kind: 'postgres'; readonly url: string };

/** `--db` names no database this service runs on. */
export class DatabaseLocationError extends Error {}

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;

/** What `--db` names; DatabaseLocationError for a URL scheme other than postgres. */
export function parseDatabaseLocation(text: string): DatabaseLocation {
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined) return { kind: 'sqlite', file: text };
  if (scheme === 'postgres' || scheme === 'postgresql') return { kind: 'postgres', url: text };
  throw new DatabaseLocationError(
    `'${redactUrl(text)}' is not a database this service runs on: give a SQLite file path (for example data/ecn.sqlite) or a PostgreSQL URL (postgres://user:password@host:5432/database).`,
  );
}

/**
 * A URL with its password replaced by `***`, for messages and logs: everything from the user name's
 * colon to the last `@`, so that a password with an unencoded `/`, `#` or `?` (a URL that cannot be
 * read) is hidden whole too (a later `@` in the query hides a little more than the password).
 */
export function redactUrl(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*):.*@/i, '$1:***@');
}

/** Settings of one engine only. */
export interface EngineOptions {
  /** PostgreSQL: the most pooled connections (default 10). */
  readonly connections?: number;
}

/** Opens the engine `--db` names (a SQLite file is created when missing). */
export async function openEngine(location: string, limits: EngineLimits, log: Logger, options: EngineOptions = {}): Promise<Engine> {
  const where = parseDatabaseLocation(location);
  switch (where.kind) {
    case 'sqlite':
      // The command line refuses it first (serve --db-connections); this guards other callers.
      if (options.connections !== undefined) throw new Error('a connection count is for PostgreSQL');
      return openSqliteEngine(where.file, limits, log);
    case 'postgres': {
      const { openPostgresEngine } = await import('./postgres/postgres-engine.js');
      return openPostgresEngine(where.url, limits, options.connections);
    }
  }
}
