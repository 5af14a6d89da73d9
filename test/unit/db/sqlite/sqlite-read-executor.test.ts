/**
 * db/sqlite/sqlite-read-executor.ts: where reads run. Reads run together (a batch's GETs) go to a read
 * thread when their expected work adds up past maxInlineRows, though each alone would run on the event
 * loop: a hundred reads that were each cheap held the event loop for seconds, back to back.
 */
import { jest } from '@jest/globals';
import type { ReadRequest } from '../../../../src/db/engine.js';
import type { ReadOutcome } from '../../../../src/db/read-steps.js';
import { ReadExecutor } from '../../../../src/db/sqlite/sqlite-read-executor.js';
import type { Database } from '../../../../src/db/sqlite/sqlite-database.js';
import type { ReadPool } from '../../../../src/db/sqlite/sqlite-read-pool.js';
import { OUTPUT_WEIGHT, type ReadCost } from '../../../../src/query/read-cost.js';

/** A database whose every table holds 1,500 rows, and which runs no statement (a read on the event loop would fail). */
const db = { get: () => ({ n: 1500 }) } as unknown as Database;

/** A filtered read of one entity of that table: 1,500 rows examined and one written. */
const cost: ReadCost = { correlated: false, walks: [], scans: ['comments'], table: 'comments', rows: 1, expansions: [], costClass: 'collection|comment|f' };
const read: ReadRequest = { steps: [], cancellable: () => [], cost };
const MAX_INLINE = 2000;

function executor(): { executor: ReadExecutor; together: jest.Mock<(reads: readonly unknown[]) => Promise<ReadOutcome[]>> } {
  const together = jest.fn((reads: readonly unknown[]): Promise<ReadOutcome[]> => Promise.resolve(reads.map((): ReadOutcome => ({ ok: true, results: [] }))));
  const pool = { runTogether: together, run: jest.fn() } as unknown as ReadPool;
  return { executor: new ReadExecutor(db, pool, MAX_INLINE), together };
}

test('one such read is cheap; two together pass the limit and go to a thread, as one job', async () => {
  expect(1500 + OUTPUT_WEIGHT).toBeLessThan(MAX_INLINE);
  const { executor: e, together } = executor();
  expect(e.threaded(cost)).toBe(false);
  expect(e.threadedTogether([read])).toBe(false);
  const outcomes = await e.runTogether([read, read]);
  expect(together).toHaveBeenCalledTimes(1);
  expect(together.mock.calls[0]?.[0]).toHaveLength(2);
  expect(outcomes).toHaveLength(2);
});

test('reads of empty tables stay on the event loop however many', () => {
  const { executor: e } = executor();
  const none = new ReadExecutor({ get: () => ({ n: 0 }) } as unknown as Database, undefined, MAX_INLINE);
  expect(none.threadedTogether(Array(100).fill(read))).toBe(false);
  expect(e.threadedTogether(Array(100).fill({ ...read, cost: { ...cost, scans: [] } }))).toBe(true); // 100 entities written: 3,000
});
