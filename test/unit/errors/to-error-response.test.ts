import { Writable } from 'node:stream';
import pino from 'pino';
import { sqliteError } from '../../../src/db/sqlite/sqlite-errors.js';
import { toErrorResponse } from '../../../src/errors/to-error-response.js';
import { ConflictError, MethodNotAllowedError } from '../../../src/errors/odata-error.js';
import { RefusalLog } from '../../../src/errors/refusal-log.js';

function capture(): { log: pino.Logger; lines: () => string[] } {
  const chunks: string[] = [];
  const stream = new Writable({ write(chunk, _enc, cb) { chunks.push(String(chunk)); cb(); } });
  return { log: pino({ level: 'info' }, stream), lines: () => chunks.join('').split('\n').filter(Boolean) };
}

test('an unexpected error is a 500 naming the correlation id, logged with the stack, never sent with it', () => {
  const { log, lines } = capture();
  const r = toErrorResponse(new TypeError('boom at secret/path.ts:12'), 'corr-123', log);
  expect(r.status).toBe(500);
  const body = JSON.parse(r.body);
  expect(body.error.code).toBe('Internal_ServerError');
  expect(body.error.message).toContain('corr-123');
  expect(r.body).not.toContain('boom');
  expect(r.body).not.toContain('path.ts');
  const logged = lines().map((l) => JSON.parse(l));
  expect(logged).toHaveLength(1);
  expect(logged[0].correlationId).toBe('corr-123');
  expect(logged[0].err.stack).toContain('boom');
});

test('a known error keeps its status, code, target and headers and is not logged as an error', () => {
  const { log, lines } = capture();
  const r = toErrorResponse(new MethodNotAllowedError('no', ['GET']), 'c', log);
  expect(r.status).toBe(405);
  expect(r.headers['Allow']).toBe('GET');
  expect(JSON.parse(r.body)).toEqual({ error: { code: 'BadRequest_MethodNotAllowed', message: 'no' } });
  const c = toErrorResponse(new ConflictError('dup', 'Internal_EntityWithSameKeyExists', 'number'), 'c', log);
  expect(JSON.parse(c.body).error.target).toBe('number');
  expect(lines()).toHaveLength(0);
});

test('driver errors the engine knows (SQLite constraints that slip past the checks, a busy database) are 409 and 503, not 500', () => {
  const { log } = capture();
  const fk = Object.assign(new Error('FOREIGN KEY constraint failed'), { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
  expect(toErrorResponse(fk, 'c', log, sqliteError).status).toBe(409);
  const uq = Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
  expect(JSON.parse(toErrorResponse(uq, 'c', log, sqliteError).body).error.code).toBe('Internal_EntityWithSameKeyExists');
  const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
  const r = toErrorResponse(busy, 'c', log, sqliteError);
  expect([r.status, r.headers['Retry-After']]).toEqual([503, '1']);
  // Without the engine's mapping an unknown error is a 500.
  expect(toErrorResponse(uq, 'c', log).status).toBe(500);
});

test('503s go to the service\'s refusal log (once per cause), not one line each; each 500 is logged; without a refusal log each 503 is', () => {
  const { log, lines } = capture();
  const refusals = new RefusalLog(log, () => undefined);
  const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
  for (let i = 0; i < 50; i++) expect(toErrorResponse(busy, `busy-${i}`, log, sqliteError, refusals).status).toBe(503);
  for (let i = 0; i < 3; i++) expect(toErrorResponse(new TypeError('bug'), `bug-${i}`, log, sqliteError, refusals).status).toBe(500);
  const logged = lines().map((l) => JSON.parse(l));
  expect(logged.map((l) => l.correlationId)).toEqual(['busy-0', 'bug-0', 'bug-1', 'bug-2']);
  expect(logged[0].msg).toBe('request refused (503)');
  expect(logged[0].err.message).toBe('database is locked');
  toErrorResponse(busy, 'alone-1', log, sqliteError);
  toErrorResponse(busy, 'alone-2', log, sqliteError);
  expect(lines().map((l) => JSON.parse(l).correlationId).slice(-2)).toEqual(['alone-1', 'alone-2']);
});
