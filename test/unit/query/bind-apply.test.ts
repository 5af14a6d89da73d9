import { bindApply } from '../../../src/query/bind-apply.js';
import { parseQueryOptions } from '../../../src/uri/parse-options.js';
import { NotImplementedError, UriSemanticError } from '../../../src/errors/odata-error.js';
import { loadTestModel } from '../../fixtures/model.js';

const model = loadTestModel();
const bind = (apply: string, typeName = 'engChangeNoticeBOMLine') => {
  const type = model.entityTypeByName.get(typeName);
  if (type === undefined) throw new Error(typeName);
  const options = parseQueryOptions(`$apply=${encodeURIComponent(apply)}`);
  return bindApply({ model, type, aliases: options.aliases }, options.apply ?? []);
};
const typeOf = (t: { kind: string; name?: string; enumType?: { name: string } }): string => (t.kind === 'enum' ? `enum ${t.enumType?.name}` : String(t.name));

test('a stage: grouping paths keep their model type, aggregates get the types of Data Aggregation §3.1.3', () => {
  const bound = bind('groupby((engChangeNotice/status,lineNo),aggregate($count as n,lineNo with sum as s,quantityPer with sum as q,lineNo with average as a,quantityPer with min as lo,description with max as d,itemNumber with countdistinct as c))');
  const [step] = bound.steps;
  if (step?.kind !== 'group') throw new Error('one group step');
  const shape = [...step.stage.shape.values()].map((c) => [c.name, typeOf(c.type as never), c.column]);
  expect(shape).toEqual([
    ['engChangeNotice/status', 'enum ecnStatus', 'c0'],
    ['lineNo', 'Edm.Int32', 'c1'],
    ['n', 'Edm.Int64', 'c2'],
    ['s', 'Edm.Int64', 'c3'],
    ['q', 'Edm.Decimal', 'c4'],
    ['a', 'Edm.Decimal', 'c5'],
    ['lo', 'Edm.Decimal', 'c6'],
    ['d', 'Edm.String', 'c7'],
    ['c', 'Edm.Int64', 'c8'],
  ]);
  expect(bound.root.result).toBe(step.stage.shape);
  expect(bound.keys.map((k) => k.name)).toEqual(['engChangeNotice/status', 'lineNo']);
});

test('filters before a stage bind over entities, after it over the aggregated instances; orderby/top/skip follow', () => {
  const bound = bind("filter(type eq 'Item')/groupby((type),aggregate($count as n))/filter(n gt 1)/orderby(n desc)/skip(1)/top(2)/identity");
  expect(bound.steps.map((s) => s.kind)).toEqual(['filter', 'group', 'filter', 'order', 'slice', 'slice']);
  const predicate = (i: number): string | undefined => {
    const s = bound.steps[i];
    return s?.kind === 'filter' ? (s.predicate.kind === 'compare' ? s.predicate.left.kind : undefined) : undefined;
  };
  expect([predicate(0), predicate(2)]).toEqual(['property', 'result']);
  expect(bound.steps.slice(4)).toEqual([{ kind: 'slice', skip: 1 }, { kind: 'slice', skip: 0, top: 2 }]);
});

test('a filter-only $apply yields entities', () => {
  const bound = bind("filter(type eq 'Item')/identity");
  expect(bound.steps.map((s) => s.kind)).toEqual(['filter']);
  expect(bound.root.result).toBeUndefined();
});

test('concat: each branch starts from the same input; it must be the last transformation', () => {
  const bound = bind('groupby((type),aggregate($count as n))/concat(aggregate($count as total),top(1))');
  expect(bound.concat).toBe(true);
  const last = bound.steps[bound.steps.length - 1];
  if (last?.kind !== 'concat') throw new Error('concat');
  expect(last.branches.map((b) => [...(b.root.result?.keys() ?? [])])).toEqual([['total'], ['type', 'n']]);
});

test.each([
  ['aggregate(description with sum as s)', UriSemanticError, 'needs a number'],
  ['aggregate(type with min as m)', NotImplementedError, 'enumeration'],
  ['groupby((type),aggregate($count as type))', UriSemanticError, "alias 'type'"],
  ['aggregate($count as n,$count as n)', UriSemanticError, "alias 'n'"],
  ['groupby((type,type))', UriSemanticError, 'twice'],
  ['groupby((engChangeNotice))', NotImplementedError, 'engChangeNotice/id'],
  ['aggregate(engChangeNotice/sourceSequence with average as x)', NotImplementedError, 'navigation path'],
  ['groupby((type),aggregate($count as n))/groupby((lineNo))', UriSemanticError, 'in the aggregated result'],
  ['orderby(lineNo)/groupby((type))', NotImplementedError, 'before groupby or aggregate'],
  ['top(2)', NotImplementedError, 'before groupby or aggregate'],
  ['concat(groupby((type)),identity)', NotImplementedError, 'yield entities'],
  ['groupby((type))/concat(identity,top(1))/filter(type ne null)', NotImplementedError, 'after concat'],
])('%s → %p (%s)', (apply, error, message) => {
  expect(() => bind(apply)).toThrow(error as never);
  expect(() => bind(apply)).toThrow(message);
});
