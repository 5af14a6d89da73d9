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
  expect(bound.stages).toHaveLength(1);
  const shape = [...(bound.stages[0]?.shape.values() ?? [])].map((c) => [c.name, typeOf(c.type as never), c.column]);
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
  expect(bound.root.result).toBe(bound.stages[0]?.shape);
});

test('filters before a stage are its input; after the last stage they are bound over the result', () => {
  const bound = bind("filter(type eq 'Item')/groupby((type),aggregate($count as n))/filter(n gt 1)/filter(type ne 'Item')");
  expect(bound.stages[0]?.before.map((f) => f.kind)).toEqual(['compare']);
  expect(bound.after).toHaveLength(2);
  expect(JSON.stringify(bound.after[0])).toContain('"kind":"result"');
});

test('a filter-only $apply has no stage and binds over the entities', () => {
  const bound = bind("filter(type eq 'Item')");
  expect(bound.stages).toEqual([]);
  expect(bound.root.result).toBeUndefined();
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
])('%s → %p (%s)', (apply, error, message) => {
  expect(() => bind(apply)).toThrow(error as never);
  expect(() => bind(apply)).toThrow(message);
});
