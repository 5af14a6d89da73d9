/** src/util/time-ordered-uuid.ts: version 7 UUIDs from a random pool, monotonic and unique. */
import { timeOrderedUuid } from '../../../src/util/time-ordered-uuid.js';

test('100,000 keys are version 7, unique and in creation order', () => {
  const ids = Array.from({ length: 100_000 }, () => timeOrderedUuid());
  expect(ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id))).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
  expect([...ids].sort()).toEqual(ids);
});

test('the first 48 bits are the creation time in milliseconds', () => {
  const before = Date.now();
  const id = timeOrderedUuid();
  const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
  expect(ms).toBeGreaterThanOrEqual(before);
  expect(ms).toBeLessThanOrEqual(Date.now() + 1);
});
