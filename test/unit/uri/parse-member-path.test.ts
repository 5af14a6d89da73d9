import { parseExpression } from '../../../src/uri/parse-expression.js';
import { as, bare, bin, int, path, syntaxError } from './helpers.js';

const segments = (text: string): unknown => bare(as(parseExpression(text), 'member').segments);

test('keys after collection segments, also after $filter(...)', () => {
  expect(segments('Items(1)/Name')).toEqual([
    { kind: 'name', name: 'Items' },
    { kind: 'key', key: { kind: 'single', value: { kind: 'integer', value: '1' } } },
    { kind: 'name', name: 'Name' },
  ]);
  expect(segments("Products/$filter(Age gt 3)(ID='Sugar')")).toEqual([
    { kind: 'name', name: 'Products' },
    { kind: 'filter', predicate: bin('gt', path('Age'), int('3')) },
    { kind: 'key', key: { kind: 'named', pairs: [{ name: 'ID', value: { kind: 'string', value: 'Sugar' } }] } },
  ]);
});

test('bound functions with and without namespace, then more path', () => {
  expect(segments('Products/Model.BestProduct()/Model.VipProduct/Name')).toEqual([
    { kind: 'name', name: 'Products' },
    { kind: 'function', name: 'Model.BestProduct', params: [] },
    { kind: 'cast', typeName: 'Model.VipProduct' },
    { kind: 'name', name: 'Name' },
  ]);
  expect(segments('Items/MostPopularName()')).toEqual([
    { kind: 'name', name: 'Items' },
    { kind: 'function', name: 'MostPopularName', params: [] },
  ]);
});

test('$count ends a path and may carry $filter and $search', () => {
  expect(segments("Items/$count($filter=Qty gt 1;$search=blue)")).toEqual([
    { kind: 'name', name: 'Items' },
    { kind: 'count', filter: bin('gt', path('Qty'), int('1')), search: 'blue' },
  ]);
  expect(syntaxError(() => parseExpression('Items/$count($top=1)')).message).toMatch(/only \$filter and \$search/);
});

test('annotations: qualified, with a qualifier, at the start or after a property', () => {
  expect(segments('Price/@Measures.Currency#Reporting')).toEqual([
    { kind: 'name', name: 'Price' },
    { kind: 'annotation', term: 'Measures.Currency#Reporting' },
  ]);
  expect(segments('@Core.Messages')).toEqual([{ kind: 'annotation', term: 'Core.Messages' }]);
});

test('a lambda variable is a root only inside its lambda', () => {
  const lambda = as(parseExpression('Items/any(x:x/Qty gt 1)'), 'lambda');
  expect(bare(as(lambda.predicate ?? parseExpression('x'), 'binary').left)).toEqual({
    kind: 'member',
    root: { kind: 'variable', name: 'x' },
    segments: [{ kind: 'name', name: 'Qty' }],
  });
  expect(bare(parseExpression('x/Qty'))).toEqual(path('x', 'Qty'));
});

test('errors: nothing after /, $root without a path', () => {
  expect(syntaxError(() => parseExpression('a/')).message).toMatch(/expected a property, type or function name after '\/'/);
  expect(syntaxError(() => parseExpression('$root')).message).toMatch(/'\/' and an entity set/);
});
