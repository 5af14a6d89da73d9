import { parseQueryOptions } from '../../../src/uri/parse-options.js';
import { QueryLimitError, UriSyntaxError } from '../../../src/errors/odata-error.js';
import type { ApplyTransformation } from '../../../src/uri/ast.js';

const apply = (text: string): readonly ApplyTransformation[] => {
  const a = parseQueryOptions(`$apply=${encodeURIComponent(text)}`).apply;
  if (a === undefined) throw new Error('no $apply');
  return a;
};
const shape = (text: string): unknown => JSON.parse(JSON.stringify(apply(text), (k, v: unknown) => (k === 'span' ? undefined : v)));
const name = (n: string) => ({ kind: 'name', name: n });

test('groupby with aggregate: paths, $count, methods and aliases', () => {
  expect(shape('groupby((status, engChangeNotice/status),aggregate($count as n,quantityPer with sum as total))')).toEqual([
    {
      kind: 'groupby',
      groupBy: [
        { kind: 'path', path: { kind: 'member', root: { kind: 'it' }, segments: [name('status')] } },
        { kind: 'path', path: { kind: 'member', root: { kind: 'it' }, segments: [name('engChangeNotice'), name('status')] } },
      ],
      then: [
        {
          kind: 'aggregate',
          items: [
            { kind: 'count', path: [], from: [], alias: 'n' },
            { kind: 'method', expr: { kind: 'member', root: { kind: 'it' }, segments: [name('quantityPer')] }, method: { kind: 'standard', name: 'sum' }, from: [], alias: 'total' },
          ],
        },
      ],
    },
  ]);
});

test('a chain of filter, groupby and filter on the aggregated result', () => {
  expect(apply("filter(status ne 'Closed')/groupby((status),aggregate($count as n))/filter(n gt 1)").map((t) => t.kind)).toEqual(['filter', 'groupby', 'filter']);
});

test('from clauses, custom aggregates and custom methods are parsed for the binder to name', () => {
  const [agg] = apply('aggregate(Amount with sum from Time with average as Daily, Forecast, Self.T with Custom.m as x, Sales/$count as c)');
  if (agg?.kind !== 'aggregate') throw new Error('aggregate');
  expect(agg.items.map((i) => i.kind)).toEqual(['method', 'custom', 'method', 'count']);
  expect(agg.items[0]).toMatchObject({ from: [{ method: { kind: 'standard', name: 'average' } }] });
  expect(agg.items[2]).toMatchObject({ method: { kind: 'custom', name: 'Custom.m' } });
  expect(agg.items[3]).toMatchObject({ path: [name('Sales')] });
});

test('orderby, top, skip, identity and concat (nested, as OpenUI5 sends them) are parsed', () => {
  const parsed = shape('concat(groupby((a,b))/aggregate($count as L),groupby((a),aggregate(x with sum as t))/orderby(t desc,a)/concat(aggregate($count as C),skip(5)/top(10)))/identity');
  expect(parsed).toMatchObject([
    {
      kind: 'concat',
      branches: [
        [{ kind: 'groupby' }, { kind: 'aggregate' }],
        [{ kind: 'groupby' }, { kind: 'orderby', items: [{ direction: 'desc' }, { direction: 'asc' }] }, { kind: 'concat', branches: [[{ kind: 'aggregate' }], [{ kind: 'skip', count: 5 }, { kind: 'top', count: 10 }]] }],
      ],
    },
    { kind: 'identity' },
  ]);
});

test('other transformations of the grammar are kept by name, their arguments skipped with quotes respected', () => {
  expect(shape("compute(x as y)/topcount(2,Amount)/filter(a eq 'x)')/Self.f(p=')(')/nest(groupby((a)) as b)")).toEqual([
    { kind: 'unsupported', name: 'compute' },
    { kind: 'unsupported', name: 'topcount' },
    { kind: 'filter', predicate: expect.anything() },
    { kind: 'unsupported', name: 'Self.f' },
    { kind: 'unsupported', name: 'nest' },
  ]);
  expect(shape('groupby((rollup(a,b)),aggregate($count as n))')).toMatchObject([{ groupBy: [{ kind: 'unsupported', name: 'rollup' }] }]);
});

test.each([
  ['aggregate()', 'expected'],
  ['aggregate(Amount with sum)', "' as '"],
  ['aggregate(Amount with total as x)', "'total' is not an aggregation method"],
  ['aggregate($count with sum as n)', "' as '"],
  ['groupbyy((a))', "'groupbyy' is not a transformation"],
  ['groupby((a/$count))', 'grouping path'],
  ['groupby((a/Self.T))', 'not a type cast'],
  ['groupby(a)', "'('"],
  ['filter(a eq 1', "')'"],
  ['compute(x as y', 'no matching'],
  ['groupby((a))/', 'transformation'],
  ['groupby((a)) filter(b)', "'/'"],
  ['top(-1)', 'whole number'],
  ['concat(identity)', 'at least two'],
])('%s → 400 (%s)', (text, message) => {
  expect(() => apply(text)).toThrow(UriSyntaxError);
  expect(() => apply(text)).toThrow(message);
});

test('nesting and size stay within the parse limits', () => {
  const deep = `${'groupby((a),'.repeat(80)}aggregate($count as n)${')'.repeat(80)}`;
  expect(() => apply(deep)).toThrow(QueryLimitError);
  const wide = `groupby((${Array.from({ length: 2500 }, (_, i) => `p${i}`).join(',')}))`;
  expect(() => apply(wide)).toThrow(QueryLimitError);
});
