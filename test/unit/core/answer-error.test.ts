import { Writable } from 'node:stream';
import pino from 'pino';
import { answerError } from '../../../src/core/answer-error.js';
import type { ServiceContext } from '../../../src/core/service-context.js';
import { ConflictError, ServiceUnavailableError } from '../../../src/errors/odata-error.js';
import { RefusalLog } from '../../../src/errors/refusal-log.js';

/** The parts of a service answerError reads: its log, its engine's mapping of driver errors, its refusal log. */
function service(): { svc: ServiceContext; refused: string[]; lines: () => string[] } {
  const chunks: string[] = [];
  const log = pino({ level: 'info' }, new Writable({ write(chunk, _enc, cb) { chunks.push(String(chunk)); cb(); } }));
  const refusals = new RefusalLog(log);
  const refused: string[] = [];
  const original = refusals.refused.bind(refusals);
  refusals.refused = (err, correlationId) => {
    refused.push(correlationId);
    original(err, correlationId);
  };
  const mapError = (e: unknown) => (e instanceof Error && e.message === 'driver: duplicate' ? new ConflictError('taken', 'Internal_EntityWithSameKeyExists') : undefined);
  const svc = { log, refusals, engine: { mapError } } as unknown as ServiceContext;
  return { svc, refused, lines: () => chunks.join('').split('\n').filter(Boolean) };
}

test("a driver error is mapped by the service's engine", () => {
  const { svc } = service();
  const r = answerError(svc, new Error('driver: duplicate'), 'r1');
  expect(r.status).toBe(409);
  expect(JSON.parse(r.body)).toEqual({ error: { code: 'Internal_EntityWithSameKeyExists', message: 'taken' } });
});

test("a 503 goes to the service's refusal log, not logged as a failed request", () => {
  const { svc, refused, lines } = service();
  const r = answerError(svc, new ServiceUnavailableError('busy', 2), 'r2');
  expect(r.status).toBe(503);
  expect(r.headers['Retry-After']).toBe('2');
  expect(refused).toEqual(['r2']);
  // Logged once, by the refusal log, not as a failed request.
  expect(lines().map((l) => JSON.parse(l).msg)).not.toContain('request failed');
});

test('an unexpected error is a 500 logged with its correlation id', () => {
  const { svc, refused, lines } = service();
  const r = answerError(svc, new TypeError('boom'), 'r3');
  expect(r.status).toBe(500);
  expect(refused).toEqual([]);
  expect(lines().map((l) => JSON.parse(l)).find((l) => l.level >= 50)?.correlationId).toBe('r3');
});
