/**
 * SQLite's errors as OData errors: constraint violations that slipped past the write checks (another
 * process wrote between the check and the statement) become 409, and a busy database that stayed busy
 * past the busy timeout a 503 to retry, never a 500.
 */
import { ODataError, ServiceUnavailableError } from '../../errors/odata-error.js';

/** true for SQLite's errors of a database locked by another connection (SQLITE_BUSY and its kinds, SQLITE_LOCKED). */
export function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED' || code.startsWith('SQLITE_LOCKED_'));
}

/** The OData error a SQLite error stands for, if any. */
export function sqliteError(e: unknown): ODataError | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return undefined;
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new ODataError(409, 'Internal_InvalidTableRelation', 'The change conflicts with related records (a reference would point to a record that does not exist, or a referenced record is still in use).');
  }
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new ODataError(409, 'Internal_EntityWithSameKeyExists', 'A record with the same key or unique value already exists.');
  }
  if (isBusy(e)) {
    return new ServiceUnavailableError('The database is busy with other writers; try again in a moment.', 1);
  }
  return undefined;
}
