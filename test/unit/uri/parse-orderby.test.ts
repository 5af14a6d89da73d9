import { parseOrderBy } from '../../../src/uri/parse-options.js';
import { bare, bin, path, syntaxError } from './helpers.js';

test('asc/desc in any case after required whitespace; asc by default', () => {
  expect(bare(parseOrderBy('Name\tDESC,Rating,Cost ge Revenue asc'))).toEqual([
    { expr: path('Name'), direction: 'desc' },
    { expr: path('Rating'), direction: 'asc' },
    { expr: bin('ge', path('Cost'), path('Revenue')), direction: 'asc' },
  ]);
});

test('anything else after an item is an error', () => {
  expect(syntaxError(() => parseOrderBy('Name up')).message).toMatch(/expected asc, desc, ',' or an operator but found 'up'/);
  expect(syntaxError(() => parseOrderBy('Name,')).message).toMatch(/expected an expression/);
});
