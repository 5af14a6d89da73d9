/**
 * Failures of a command to start (a busy port, a database it cannot open or write, a bad option):
 * printed as exactly one line on stderr, exit code 1, so a supervisor or a user's shell sees that no
 * service is running instead of a URL and a token.
 */

/** A start-up failure; its message is the one line printed. */
export class StartupError extends Error {}

/** Errors better-sqlite3 and node's fs raise, as far as this module reads them. */
interface CodedError {
  readonly code?: unknown;
  readonly message?: unknown;
}

/** true for an error SQLite or the file system raised while opening or writing the database. */
export function isDatabaseFailure(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const code = (e as CodedError).code;
  return e.constructor?.name === 'SqliteError' || (typeof code === 'string' && /^(SQLITE_|E[A-Z]+$)/.test(code));
}

/** The one line for a database that cannot be opened, read or written, with what to check. */
export function databaseFailure(command: string, dbFile: string, e: unknown): StartupError {
  const reason = String((e as CodedError).message ?? e).split('\n')[0] ?? 'unknown error';
  const code = String((e as CodedError).code ?? '');
  const hint =
    code === 'SQLITE_NOTADB' ? 'the file is not a SQLite database'
    : code === 'SQLITE_READONLY' || code === 'EACCES' || code === 'EROFS' || code === 'EPERM' ? 'the file or its folder is not writable by this user'
    : code === 'SQLITE_CANTOPEN' || code === 'EISDIR' ? 'the path must name a file in a folder this user can read and write'
    : code === 'ENOTDIR' || code === 'EEXIST' ? 'a part of the folder path is a file'
    : 'check the path and its permissions';
  return new StartupError(`ecn-odata ${command}: cannot use the database ${dbFile}: ${reason} (${hint}).`);
}
