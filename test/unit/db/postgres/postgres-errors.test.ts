/**
 * PostgreSQL's and node-postgres's errors as OData errors: a server that cannot be reached or went
 * away is the 503 to retry, a pool whose connections all stayed busy past the deadline the request
 * deadline's 503, and what the request or the data caused keeps its own mapping.
 */
import { isUnavailable, markDriverError, postgresError } from '../../../../src/db/postgres/postgres-errors.js';

const withCode = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });
/** As node-postgres's calls hand it on (postgres-database.ts driverQuery, driverConnect). */
const driver = (e: Error): Error => markDriverError(e) as Error;

test.each([
  ['a refused connect', driver(withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'))],
  ['a reset connection', driver(withCode('ECONNRESET', 'read ECONNRESET'))],
  ['a name that does not resolve now', driver(withCode('EAI_AGAIN', 'getaddrinfo EAI_AGAIN db'))],
  ['the server shutting down (57P01)', withCode('57P01', 'terminating connection due to administrator command')],
  ['the server starting up (57P03)', withCode('57P03', 'the database system is starting up')],
  ['too many connections (53300)', withCode('53300', 'sorry, too many clients already')],
  ['a connection exception (08006)', withCode('08006', 'connection failure')],
  ['a database not accepting connections (55000)', withCode('55000', 'database "x" is not currently accepting connections')],
  ['the socket closed under a query', driver(new Error('Connection terminated unexpectedly'))],
  ['a connect that timed out', driver(new Error('Connection terminated due to connection timeout'))],
  ['a client broken before', driver(new Error('Client has encountered a connection error and is not queryable'))],
  ['every address of a name refused (node gives the AggregateError the first code)', driver(Object.assign(new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], ''), { code: 'ECONNREFUSED' }))],
])('%s is the 503 of a database that cannot be reached', (_, error) => {
  expect(isUnavailable(error)).toBe(true);
  const mapped = postgresError(error, 5000);
  expect({ status: mapped?.status, code: mapped?.code, retryAfter: mapped?.headers?.['Retry-After'] }).toEqual({ status: 503, code: 'Internal_ServiceUnavailable', retryAfter: '5' });
  expect(mapped?.message).toMatch(/database cannot be reached/);
});

test.each([
  ['another state 55000', withCode('55000', 'object not in prerequisite state')],
  ['a unique violation', withCode('23505', 'duplicate key')],
  ['a serialization failure', withCode('40001', 'could not serialize access')],
  ['a programming error', new TypeError("Cannot read properties of undefined (reading 'x')")],
  ['a string', 'ECONNREFUSED'],
  ['an AggregateError of other errors', driver(new AggregateError([withCode('ECONNREFUSED'), new Error('other')], ''))],
  // Not node-postgres's: a rule's own HTTP call that was refused, a client that went away while its body was read.
  ['a refused connect that did not come from the driver', withCode('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.5:443')],
  ['a reset that did not come from the driver', withCode('ECONNRESET', 'aborted')],
  ['a "Connection terminated" message that did not come from the driver', new Error('Connection terminated unexpectedly')],
])('%s is not taken for an unreachable database', (_, error) => {
  expect(isUnavailable(error)).toBe(false);
});

test('a pool whose connections all stayed busy past the deadline is the request deadline’s 503, not an unreachable database', () => {
  const mapped = postgresError(driver(new Error('timeout exceeded when trying to connect')), 5000);
  expect({ status: mapped?.status, code: mapped?.code }).toEqual({ status: 503, code: 'Internal_ServiceUnavailable' });
  expect(mapped?.message).toMatch(/did not finish within 5000 ms/);
});

test('a session the server ended for idling in its transaction (25P03) is a 503 to retry', () => {
  const mapped = postgresError(withCode('25P03', 'terminating connection due to idle-in-transaction timeout'), 5000);
  expect({ status: mapped?.status, code: mapped?.code }).toEqual({ status: 503, code: 'Internal_ServiceUnavailable' });
  expect(mapped?.message).toMatch(/did not finish within 5000 ms; nothing of it was stored/);
});

test.each([
  ['a 64-bit overflow (22003)', withCode('22003', 'bigint out of range'), /out of the range the database can hold \(bigint out of range\)/],
  ['a NUL character (22021)', withCode('22021', 'invalid byte sequence for encoding "UTF8": 0x00'), /NUL character \(U\+0000\)/],
  ['a character the encoding lacks (22P05)', withCode('22P05', 'unsupported Unicode escape sequence'), /cannot store/],
])('%s the request brought is a 400, not a 500', (_, error, message) => {
  const mapped = postgresError(error, 5000);
  expect({ status: mapped?.status, code: mapped?.code }).toEqual({ status: 400, code: 'BadRequest' });
  expect(mapped?.message).toMatch(message);
});

test('a data exception the service did not foresee stays a 500 (unmapped), so it is seen and fixed', () => {
  expect(postgresError(withCode('22P02', 'invalid input syntax for type integer: "x"'), 5000)).toBeUndefined();
});
