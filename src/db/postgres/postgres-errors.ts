/**
 * PostgreSQL's errors (SQLSTATE codes) as the OData errors SQLite's give (db/sqlite/sqlite-errors.ts):
 * constraint violations that slipped past the write checks become 409, lock and serialization
 * failures that stayed after the engine's retries a 503 to retry, a cancelled statement the read
 * deadline's 503, and the error odata_raise_limit raises the query limit's 400. A server that cannot
 * be reached or went away (a restart, a managed database's failover, too many connections) is a 503
 * to retry too. Never a 500 for what another writer or the database server caused.
 */
import { ODataError, QueryLimitError, ServiceUnavailableError } from '../../errors/odata-error.js';
import { readTimeoutError } from '../read-steps.js';
import { QUERY_LIMIT_SQLSTATE } from './postgres-functions.js';

/** SQLSTATEs of a transaction that lost to another (serialization failure, deadlock, lock not available): run it again. */
const RETRYABLE = new Set(['40001', '40P01', '55P03']);

/**
 * SQLSTATEs of a server that is going away or not taking connections: connection exceptions (class
 * 08), too many connections (53300), shutdown and start-up (57P01-57P03), and a database that does not
 * accept connections now (55000 is also other states, so only with that message is it counted).
 */
const UNAVAILABLE = new Set(['08000', '08001', '08003', '08004', '08006', '53300', '57P01', '57P02', '57P03']);

/** The socket errors of a server that cannot be reached (node's `code` of a failed connect or a dropped connection). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

/**
 * node-postgres's own errors of a lost or refused connection, which carry no code: the server closed
 * the socket, the connect timed out (connectionTimeoutMillis), or a client already broken was used.
 */
const DRIVER_CONNECTION_MESSAGE = /^(Connection terminated|Client has encountered a connection error|Client was closed)/;

/** pg-pool's error when every connection stayed busy past connectionTimeoutMillis: a busy service, not a lost server. */
const POOL_WAIT_MESSAGE = 'timeout exceeded when trying to connect';

/**
 * Errors that came out of node-postgres (a statement, a connect: postgres-database.ts). Only these are
 * read as a lost or refused connection by their socket code or message: a rule's own HTTP call that is
 * refused, or a client that goes away while its body is read, stays what it is.
 */
const fromDriver = new WeakSet<object>();

/** Marks `e` as node-postgres's (see fromDriver); returns it. */
export function markDriverError(e: unknown): unknown {
  if (typeof e === 'object' && e !== null) fromDriver.add(e);
  return e;
}

/** The message of an error-like value (errors from node's own modules are not `instanceof` another realm's Error). */
function messageOf(e: unknown): string | undefined {
  const message = (e as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : undefined;
}

/** true for an error saying the database server cannot be reached now (not a fault of the request or of the data). */
export function isUnavailable(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const code = (e as { code?: unknown }).code;
  const message = messageOf(e) ?? '';
  // The server's own SQLSTATEs say it wherever they come from; sockets and driver messages only from the driver.
  if (typeof code === 'string' && (UNAVAILABLE.has(code) || (code === '55000' && /not currently accepting connections/.test(message)))) return true;
  if (!fromDriver.has(e)) return false;
  if (typeof code === 'string') return SOCKET_CODES.has(code);
  return DRIVER_CONNECTION_MESSAGE.test(message);
}

/** true for pg-pool's error of a wait for a free connection that ran out (connectionTimeoutMillis). */
export function isPoolWait(e: unknown): boolean {
  return fromDriver.has(e as object) && messageOf(e) === POOL_WAIT_MESSAGE;
}

/** The 503 of a database server that cannot be reached now. */
export function databaseUnavailableError(): ServiceUnavailableError {
  return new ServiceUnavailableError('The database cannot be reached; try again in a moment.', 5);
}

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
  if (isUnavailable(e)) return databaseUnavailableError();
  if (isPoolWait(e)) return readTimeoutError(timeoutMs);
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
    // A session the server ended for idling in its transaction past the limit (the write batches say it as a write's 503).
    case '25P03':
      return new ServiceUnavailableError(`The change did not finish within ${timeoutMs} ms; nothing of it was stored. Try again in a moment.`, 1);
    case QUERY_LIMIT_SQLSTATE:
      return new QueryLimitError((e as Error).message, '$expand');
    case '2201B':
      return new ODataError(400, 'BadRequest_InvalidRequestUrl', `The regular expression is not valid: ${(e as Error).message}`);
    // Values the request brought that the database's types cannot hold. The planner computes integers in
    // 64 bits and keeps NUL characters out (uri/nul-character.ts, body validation); what still gets here
    // (a 64-bit overflow, a character the encoding lacks) is the request's, not the service's fault.
    case '22003':
      return new ODataError(400, 'BadRequest', `A number in the request, or computed from it, is out of the range the database can hold (${(e as Error).message}).`);
    case '22021':
    case '22P05':
      return new ODataError(400, 'BadRequest', `A text in the request holds a character the database cannot store, such as the NUL character (U+0000) (${(e as Error).message}).`);
    default:
      return undefined;
  }
}
