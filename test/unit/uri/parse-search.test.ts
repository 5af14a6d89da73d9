import { parseSearch } from '../../../src/uri/parse-search.js';
import { limitError, syntaxError } from './helpers.js';

test('words, phrases, operators, implicit AND and grouping', () => {
  for (const text of ['blue', '1984', "Daniel's", '08/15', 'blue green', 'blue AND green', 'blue OR green', 'NOT blue', '"blue green"', '(foo OR that) AND (bar OR baz) AND NOT quux', 'AND', 'NOT NOT', 'AND OR NOT', '%']) {
    expect(parseSearch(text)).toBe(text);
  }
});

test('the single-quoted form is taken literally', () => {
  expect(parseSearch("'\"blue'")).toBe("'\"blue'");
  expect(parseSearch("'('")).toBe("'('");
});

test('unbalanced quotes or parentheses and a bare ; are errors', () => {
  expect(syntaxError(() => parseSearch('"blue')).message).toMatch(/no closing double quote/);
  expect(syntaxError(() => parseSearch('"blue"green')).position).toBe(6);
  expect(syntaxError(() => parseSearch('(blue')).message).toMatch(/expected '\)' closing the search group/);
  expect(syntaxError(() => parseSearch('a;b')).message).toMatch(/put the text in double quotes/);
});

test('deep grouping hits the depth limit; long term lists do not recurse', () => {
  expect(limitError(() => parseSearch(`${'('.repeat(1000)}a${')'.repeat(1000)}`)).status).toBe(400);
  expect(parseSearch(Array(5000).fill('w').join(' '))).toHaveLength(9999);
});
