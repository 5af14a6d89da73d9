/**
 * The cost model prices a read's plan with table sizes: plain pages are cheap, scans cost their table,
 * expansions their average fan-out within the caps, and correlated reads are never cheap.
 */
import { bindExpression } from '../../../src/query/bind-expression.js';
import { parseQueryOptions } from '../../../src/uri/parse-options.js';
import { loadTestModel } from '../../fixtures/model.js';
import { collectionWalks, expectedWork, fullWork, EXPANDED_WEIGHT, OUTPUT_WEIGHT, type ReadCost } from '../../../src/query/read-cost.js';

const sizes: Record<string, number> = { ecn: 10_000, comments: 50_000, lines: 100_000, tasks: 10_000, preds: 500_000 };
const rowsOf = (t: string): number => sizes[t] ?? 0;
const base: ReadCost = { correlated: false, walks: [], scans: [], table: 'ecn', rows: 100, expansions: [], costClass: 'x' };

test('a page in the default order costs its entities', () => {
  expect(expectedWork(base, rowsOf)).toBe(100 * OUTPUT_WEIGHT);
});

test('a filtered or ordered page also examines its whole table', () => {
  expect(expectedWork({ ...base, rows: 50, scans: ['ecn'] }, rowsOf)).toBe(10_000 + 50 * OUTPUT_WEIGHT);
});

test('expansions cost their average fan-out, nested ones multiply, within the caps', () => {
  const comments = { source: 'ecn', target: 'comments', collection: true, cap: 1000, nested: [], walks: [] };
  const lines = { source: 'ecn', target: 'lines', collection: true, cap: 1000, nested: [], walks: [] };
  expect(expectedWork({ ...base, rows: 20, expansions: [comments, lines] }, rowsOf)).toBe(20 * (OUTPUT_WEIGHT + EXPANDED_WEIGHT * (5 + 10)));
  const capped = { ...lines, cap: 3 };
  expect(expectedWork({ ...base, rows: 1, expansions: [capped] }, rowsOf)).toBe(OUTPUT_WEIGHT + EXPANDED_WEIGHT * 3);
  const tasks = { source: 'ecn', target: 'tasks', collection: true, cap: 1000, nested: [{ source: 'tasks', target: 'preds', collection: true, cap: 1000, nested: [], walks: [] }], walks: [] };
  expect(expectedWork({ ...base, rows: 1, expansions: [tasks] }, rowsOf)).toBe(OUTPUT_WEIGHT + EXPANDED_WEIGHT * (1 * (1 + 50)));
});

test('a page cannot hold more entities than its table: a whole small table read without $top is cheap', () => {
  expect(expectedWork({ ...base, rows: 20_000, scans: ['companies'], table: 'companies' }, (t) => (t === 'companies' ? 2 : rowsOf(t)))).toBe(2 + 2 * OUTPUT_WEIGHT);
  expect(expectedWork({ ...base, rows: 20_000 }, rowsOf)).toBe(10_000 * OUTPUT_WEIGHT);
});

test('a correlated read (any/all/$count) is never expected to be cheap', () => {
  expect(expectedWork({ ...base, rows: 1, correlated: true }, rowsOf)).toBe(Infinity);
});

test('in full, a lambda over a collection examines its average fan-out for each row of the table', () => {
  // ecn?$filter=comments/any(...): each ECN's 5 comments, i.e. every comment once.
  const any = { ...base, rows: 1, correlated: true, scans: ['ecn'], walks: [{ source: 'ecn', target: 'comments', nested: [] }] };
  expect(fullWork(any, rowsOf)).toBe(10_000 + 10_000 * 5 + OUTPUT_WEIGHT);
});

test('in full, nested lambdas multiply: a comment\'s siblings, and theirs again', () => {
  // comments?$filter=ecn/comments/any(a: a/ecn/comments/any(b: ...)): per comment 5 siblings, each with 5.
  const walk = { source: 'ecn', target: 'comments', nested: [{ source: 'ecn', target: 'comments', nested: [] }] };
  const nested = { ...base, table: 'comments', rows: 1, correlated: true, scans: ['comments'], walks: [walk] };
  expect(fullWork(nested, rowsOf)).toBe(50_000 + 50_000 * 5 * (1 + 5) + OUTPUT_WEIGHT);
});

test('in full, the lambdas of an expansion are walked for each entity it expands', () => {
  const comments = { source: 'ecn', target: 'comments', collection: true, cap: 1000, nested: [], walks: [{ source: 'comments', target: 'preds', nested: [] }] };
  expect(fullWork({ ...base, rows: 2, expansions: [comments] }, rowsOf)).toBe(2 * (OUTPUT_WEIGHT + 5 * (EXPANDED_WEIGHT + 10)));
});

test('without lambdas, the full work is the expected work', () => {
  const page = { ...base, rows: 50, scans: ['ecn'] };
  expect(fullWork(page, rowsOf)).toBe(expectedWork(page, rowsOf));
});

test('the walks of a $filter: each lambda and $count over a collection, from the table that owns it, nested ones inside', () => {
  const model = loadTestModel();
  const type = model.entityTypeByName.get('engChangeNoticeComment');
  if (type === undefined) throw new Error('engChangeNoticeComment');
  const filter = (text: string) => {
    const options = parseQueryOptions(`$filter=${encodeURIComponent(text)}`);
    if (options.filter === undefined) throw new Error(text);
    return bindExpression(options.filter, { model, it: { variable: '$it', type }, variables: new Map(), aliases: options.aliases, option: '$filter', aliasDepth: 0 });
  };
  const ecns = type.navigationByName.get('engChangeNotice')?.target.table as string;
  const comments = type.table;
  expect(collectionWalks(filter("comment eq 'x'"))).toEqual([]);
  expect(collectionWalks(filter("engChangeNotice/engChangeNoticeComments/any(a:a/engChangeNotice/engChangeNoticeComments/any(b:b/comment eq 'zz')) or engChangeNotice/engChangeNoticeComments/$count gt 2"))).toEqual([
    { source: ecns, target: comments, nested: [{ source: ecns, target: comments, nested: [] }] },
    { source: ecns, target: comments, nested: [] },
  ]);
});
