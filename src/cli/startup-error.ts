/**
 * Failures of a command to start (a busy port, a database it cannot open or write, a bad option):
 * printed as exactly one line on stderr, exit code 1, so a supervisor or a user's shell sees that no
 * service is running instead of a URL and a token.
 */

import { redactUrl } from '../db/database-location.js';

/** A start-up failure; its message is the one line printed. */
export class StartupError extends Error {}

/** Errors better-sqlite3, node-postgres and node's fs and net raise, as far as this module reads them. */
interface CodedError {
  readonly code?: unknown;
  readonly message?: unknown;
}

/** true for an error SQLite, PostgreSQL, the file system or the network raised while opening or writing the database. */
export function isDatabaseFailure(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const name = e.constructor?.name;
  if (name === 'SqliteError' || name === 'DatabaseError') return true;
  const code = (e as CodedError).code;
  if (typeof code === 'string') return /^(SQLITE_|E[A-Z]+$|EAI_AGAIN$)/.test(code);
  // node-postgres's own connection errors carry no code ('Connection terminated due to connection timeout').
  return /^Connection terminated/.test(String((e as CodedError).message ?? ''));
}

/** What to check about a PostgreSQL URL, by the error's code (a SQLSTATE or a socket error) or message. */
function postgresHint(code: string, reason: string): string {
  // node-postgres's connect timeout has no code: it is a connect that timed out.
  switch (/connection timeout/.test(reason) ? 'ETIMEDOUT' : code) {
    case 'ECONNREFUSED':
      return 'is the PostgreSQL server running and listening on that host and port?';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name does not resolve';
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the server does not answer on that host and port (a firewall, or the wrong address?)';
    case '28P01':
    case '28000':
      return "the user name or password is wrong, or the server's pg_hba.conf does not let this user in from here";
    case '3D000':
      return 'create the database first (createdb -E UTF8 -T template0 <name>), or correct its name in the URL';
    case '42501':
      return 'the user may not create tables, functions or triggers in this database: connect as its owner, or make the user its owner';
    default:
      return 'check the URL, that the server runs and that the user may connect';
  }
}

/** The one line for a database that cannot be opened, read or written, with what to check (a URL's password hidden). */
export function databaseFailure(command: string, location: string, e: unknown): StartupError {
  const dbFile = redactUrl(location);
  // A connect to a name with several addresses fails with an AggregateError whose own message is empty.
  const first = (e as { errors?: unknown }).errors;
  const message = String((e as CodedError).message ?? e) || (Array.isArray(first) && first.length > 0 ? String((first[0] as CodedError).message ?? first[0]) : '');
  const reason = message.split('\n')[0] || 'unknown error';
  const code = String((e as CodedError).code ?? '');
  const hint =
    /^postgres(ql)?:\/\//i.test(dbFile) ? postgresHint(code, reason)
    : code === 'SQLITE_NOTADB' ? 'the file is not a SQLite database'
    : code === 'SQLITE_READONLY' || code === 'EACCES' || code === 'EROFS' || code === 'EPERM' ? 'the file or its folder is not writable by this user'
    : code === 'SQLITE_CANTOPEN' || code === 'EISDIR' ? 'the path must name a file in a folder this user can read and write'
    : code === 'ENOTDIR' || code === 'EEXIST' ? 'a part of the folder path is a file'
    : 'check the path and its permissions';
  return new StartupError(`ecn-odata ${command}: cannot use the database ${dbFile}: ${reason} (${hint}).`);
}
