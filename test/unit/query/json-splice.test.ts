/**
 * src/query/json-splice.ts: the row's entity JSON with the members spliced in before its closing brace,
 * texts as they are and column values as text.
 */
import { splicedJson } from '../../../src/query/json-splice.js';

test('members go before the closing brace, in order; column values as text', () => {
  const row = ['{"id":"k","n":1}', 'k', 'v', '[{"x":1}]', 7, 'null'];
  expect(splicedJson(row, [',"a@odata.count":', 4, ',"a":', 3, ',"b":', 5])).toBe('{"id":"k","n":1,"a@odata.count":7,"a":[{"x":1}],"b":null}');
  expect(JSON.parse(splicedJson(row, [',"c":"', 4, '"']))).toEqual({ id: 'k', n: 1, c: '7' });
});

test('no members: the text as it is', () => {
  expect(splicedJson(['{"id":"k"}'], [])).toBe('{"id":"k"}');
});

test('a count the driver gives as a bigint or a string is written as its digits', () => {
  expect(splicedJson(['{"id":"k"}', 12n, '13'], [',"a":', 1, ',"b":', 2])).toBe('{"id":"k","a":12,"b":13}');
});
