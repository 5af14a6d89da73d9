import { parseExpand } from '../../../src/uri/parse-options.js';
import { bare, syntaxError } from './helpers.js';

test('paths through complex properties and casts, star, $value, annotations', () => {
  expect(parseExpand('Address/Model.AddressWithLocation/Country,*,$value,@Namespace.EntityTerm($top=2)').map((i) => bare(i))).toEqual([
    {
      path: [{ kind: 'name', name: 'Address' }, { kind: 'cast', typeName: 'Model.AddressWithLocation' }, { kind: 'name', name: 'Country' }],
      star: false,
      ref: false,
      count: false,
      options: {},
    },
    { path: [], star: true, ref: false, count: false, options: {} },
    { path: [], star: false, ref: false, count: false, value: true, options: {} },
    { path: [{ kind: 'annotation', term: 'Namespace.EntityTerm' }], star: false, ref: false, count: false, options: { top: 2 } },
  ]);
});

test('/$ref and /$count suffixes with their own option sets', () => {
  const [ref, count] = parseExpand("Items/$ref($filter=Qty gt 1;$top=5),Items/$count($search=Hugo)");
  expect(ref?.ref).toBe(true);
  expect(ref?.options.top).toBe(5);
  expect(count?.count).toBe(true);
  expect(count?.options.search).toBe('Hugo');
  expect(syntaxError(() => parseExpand('Customer/$ref($levels=4)')).position).toBe(14);
  expect(syntaxError(() => parseExpand('Items/$count($count=true)')).message).toMatch(/\$count is not allowed after Items\/\$count/);
});

test('star takes /$ref or ($levels) only; $levels is positive without leading zeros, or max', () => {
  expect(parseExpand('*/$ref')[0]?.ref).toBe(true);
  expect(parseExpand('*($levels=2)')[0]?.options.levels).toBe(2);
  expect(syntaxError(() => parseExpand('*($top=2)')).message).toMatch(/allowed are \$levels/);
  expect(syntaxError(() => parseExpand('Category($levels=04)')).message).toMatch(/without leading zeros/);
});

test('nested options: ; separated, each at most once, parentheses closed', () => {
  expect(syntaxError(() => parseExpand('a($top=1;$top=2)')).message).toMatch(/\$top appears twice/);
  expect(syntaxError(() => parseExpand('Manager($search=gr(een)')).message).toMatch(/expected ';' or '\)' but found '\('/);
  expect(syntaxError(() => parseExpand('a()')).message).toMatch(/expected a query option/);
});
