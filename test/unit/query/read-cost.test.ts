/**
 * The cost model prices a read's plan with table sizes: plain pages are cheap, scans cost their table,
 * expansions their average fan-out within the caps, and correlated reads are never cheap.
 */
import { expectedWork, EXPANDED_WEIGHT, OUTPUT_WEIGHT, type ReadCost } from '../../../src/query/read-cost.js';

const sizes: Record<string, number> = { ecn: 10_000, comments: 50_000, lines: 100_000, tasks: 10_000, preds: 500_000 };
const rowsOf = (t: string): number => sizes[t] ?? 0;
const base: ReadCost = { correlated: false, scans: [], table: 'ecn', rows: 100, expansions: [], costClass: 'x' };

test('a page in the default order costs its entities', () => {
  expect(expectedWork(base, rowsOf)).toBe(100 * OUTPUT_WEIGHT);
});

test('a filtered or ordered page also examines its whole table', () => {
  expect(expectedWork({ ...base, rows: 50, scans: ['ecn'] }, rowsOf)).toBe(10_000 + 50 * OUTPUT_WEIGHT);
});

test('expansions cost their average fan-out, nested ones multiply, within the caps', () => {
  const comments = { source: 'ecn', target: 'comments', collection: true, cap: 1000, nested: [] };
  const lines = { source: 'ecn', target: 'lines', collection: true, cap: 1000, nested: [] };
  expect(expectedWork({ ...base, rows: 20, expansions: [comments, lines] }, rowsOf)).toBe(20 * (OUTPUT_WEIGHT + EXPANDED_WEIGHT * (5 + 10)));
  const capped = { ...lines, cap: 3 };
  expect(expectedWork({ ...base, rows: 1, expansions: [capped] }, rowsOf)).toBe(OUTPUT_WEIGHT + EXPANDED_WEIGHT * 3);
  const tasks = { source: 'ecn', target: 'tasks', collection: true, cap: 1000, nested: [{ source: 'tasks', target: 'preds', collection: true, cap: 1000, nested: [] }] };
  expect(expectedWork({ ...base, rows: 1, expansions: [tasks] }, rowsOf)).toBe(OUTPUT_WEIGHT + EXPANDED_WEIGHT * (1 * (1 + 50)));
});

test('a page cannot hold more entities than its table: a whole small table read without $top is cheap', () => {
  expect(expectedWork({ ...base, rows: 20_000, scans: ['companies'], table: 'companies' }, (t) => (t === 'companies' ? 2 : rowsOf(t)))).toBe(2 + 2 * OUTPUT_WEIGHT);
  expect(expectedWork({ ...base, rows: 20_000 }, rowsOf)).toBe(10_000 * OUTPUT_WEIGHT);
});

test('a correlated read (any/all/$count) is never expected to be cheap', () => {
  expect(expectedWork({ ...base, rows: 1, correlated: true }, rowsOf)).toBe(Infinity);
});
