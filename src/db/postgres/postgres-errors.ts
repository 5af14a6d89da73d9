/**
 * PostgreSQL's errors (SQLSTATE codes) as the OData errors SQLite's give (db/sqlite/sqlite-errors.ts):
 * constraint violations that slipped past the write checks become 409, lock and serialization
 * failures that stayed after the engine's retries a 503 to retry, a cancelled statement the read
 * deadline's 503, and the error odata_raise_limit raises the query limit's 400. Never a 500 for what
 * another writer caused.
 */
import { ODataError, QueryLimitError, ServiceUnavailableError } from '../../errors/odata-error.js';
import { readTimeoutError } from '../read-pool.js';
import { QUERY_LIMIT_SQLSTATE } from './postgres-functions.js';

/** SQLSTATEs of a transaction that lost to another (serialization failure, deadlock, lock not available): run it again. */
const RETRYABLE = new Set(['40001', '40P01', '55P03']);

/** The SQLSTATE of a driver error, if it has one. */
export function sqlState(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.length === 5 ? code : undefined;
}

/** true for an error after which the whole transaction may simply run again. */
export function isRetryable(e: unknown): boolean {
  const code = sqlState(e);
  return code !== undefined && RETRYABLE.has(code);
}

/** The OData error a PostgreSQL error stands for, if any; `timeoutMs` is the read deadline a cancelled statement ran into. */
export function postgresError(e: unknown, timeoutMs: number): ODataError | undefined {
  if (e instanceof ODataError) return undefined;
  const code = sqlState(e);
  if (code === undefined) return undefined;
  switch (code) {
    case '23503':
      return new ODataError(409, 'Internal_InvalidTableRelation', 'The change conflicts with related records (a reference would point to a record that does not exist, or a referenced record is still in use).');
    case '23505':
      return new ODataError(409, 'Internal_EntityWithSameKeyExists', 'A record with the same key or unique value already exists.');
    // SQLite's STRICT tables refuse the same values; the write checks catch them first, another writer's change may not be.
    case '23502':
    case '23514':
      return new ODataError(409, 'Internal_InvalidTableRelation', 'The change conflicts with the rules of the stored records (a required value is missing or a value is out of its range).');
    case '40001':
    case '40P01':
    case '55P03':
      return new ServiceUnavailableError('The database is busy with other writers; try again in a moment.', 1);
    case '57014':
      return readTimeoutError(timeoutMs);
    case QUERY_LIMIT_SQLSTATE:
      return new QueryLimitError((e as Error).message, '$expand');
    case '2201B':
      return new ODataError(400, 'BadRequest_InvalidRequestUrl', `The regular expression is not valid: ${(e as Error).message}`);
    default:
      return undefined;
  }
}
