/**
 * `Data-Access-Intent` read once from the request (core/read-intent.ts, conventions §13): only a GET
 * (or HEAD), or a `$batch` of nothing but GETs, with `ReadOnly` may read on a replica.
 */
import { batchReadIntent, readIntentOf } from '../../../src/core/read-intent.js';

const readOnly = { 'data-access-intent': 'ReadOnly' };

test('a GET or HEAD with ReadOnly (any case, spaces around) reads on a replica', () => {
  expect(readIntentOf('GET', readOnly)).toBe('readOnly');
  expect(readIntentOf('HEAD', readOnly)).toBe('readOnly');
  expect(readIntentOf('GET', { 'data-access-intent': ' readonly ' })).toBe('readOnly');
});

test('without the header, with another value, or on a write, the primary', () => {
  expect(readIntentOf('GET', {})).toBe('primary');
  expect(readIntentOf('GET', { 'data-access-intent': 'ReadWrite' })).toBe('primary');
  for (const method of ['POST', 'PATCH', 'PUT', 'DELETE']) expect(readIntentOf(method, readOnly)).toBe('primary');
});

test('a $batch reads on a replica only with the header and nothing but GETs', () => {
  expect(batchReadIntent(readOnly, ['GET', 'GET', 'HEAD'])).toBe('readOnly');
  expect(batchReadIntent(readOnly, ['GET', 'PATCH'])).toBe('primary');
  expect(batchReadIntent(readOnly, ['GET', 'changeSet'])).toBe('primary');
  expect(batchReadIntent({}, ['GET'])).toBe('primary');
});
