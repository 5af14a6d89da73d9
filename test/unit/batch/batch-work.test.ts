/**
 * src/batch/batch-work.ts: one budget for a batch's reads; the work of those that ran and of those about
 * to run together, against limits.maxBatchWork.
 */
import { batchWorkError } from '../../../src/batch/batch-work.js';
import { BatchFormatError } from '../../../src/errors/odata-error.js';

test('reads that fit the budget, up to it exactly, are no error', () => {
  expect(batchWorkError(0, 1000, 1000)).toBeUndefined();
  expect(batchWorkError(400, 600, 1000)).toBeUndefined();
});

test('past it, a 400 naming the setting, with the work the reads would do and the budget', () => {
  const e = batchWorkError(0, 4_512_000, 1_000_000);
  expect(e).toBeInstanceOf(BatchFormatError);
  expect(e?.status).toBe(400);
  expect(e?.message).toBe(
    'The reads of the batch examine about 4.5 million rows together (an entity written counts 30), more than one batch may (limits.maxBatchWork in service.json: 1,000,000); send them in several batches, or narrow them ($top, $filter on fewer rows, fewer lambdas).',
  );
});

test('what earlier reads of the batch were charged counts: two halves that each fit do not fit together', () => {
  expect(batchWorkError(0, 600, 1000)).toBeUndefined();
  expect(batchWorkError(600, 600, 1000)?.message).toContain('about 1,200 rows');
});

test('work is written rounded: thousands in full, millions to one decimal below ten and whole above', () => {
  expect(batchWorkError(0, 1234.4, 1)?.message).toContain('about 1,234 rows');
  expect(batchWorkError(0, 36_203_000_000, 1)?.message).toContain('about 36,203 million rows');
  expect(batchWorkError(0, Infinity, 1)?.message).toContain('examine an unbounded number of rows');
});
