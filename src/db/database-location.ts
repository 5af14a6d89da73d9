/**
 * What `--db` names (conventions §10): a `postgres://` (or `postgresql://`) URL is PostgreSQL,
 * anything without a URL scheme is a SQLite file (or `:memory:`), and any other scheme is refused with
 * a message that says what is accepted, rather than taken as a file name. Also how a URL is shown in
 * messages (without its password). Imports no engine.
 */

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
