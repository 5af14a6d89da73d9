import { Lexer } from '../../../src/uri/lexer.js';
import { DEFAULT_PARSE_LIMITS, ParseBudget } from '../../../src/uri/parse-limits.js';
import { scanJsonString } from '../../../src/uri/parse-json.js';
import { parseExpression } from '../../../src/uri/parse-expression.js';
import { as, limitError, syntaxError } from './helpers.js';

test('arrays and objects with whitespace, nested values and expressions are kept as text', () => {
  for (const text of ['[]', '{}', '[ "red", "green" , "blue" ]', '{"a":{"b":[1,null,true]},"c":$root/Customers(1)}', "[FirstName,'x',2 add 3]"]) {
    expect(as(parseExpression(text), 'json').text).toBe(text);
  }
});

test('object members need a quoted name and a colon', () => {
  expect(syntaxError(() => parseExpression('{a:1}')).message).toMatch(/member name in double quotes/);
  expect(syntaxError(() => parseExpression('{"a" 1}')).message).toMatch(/':' after the member name/);
  expect(syntaxError(() => parseExpression('[1,2')).message).toMatch(/',' or '\]'/);
});

test('JSON string escapes', () => {
  const lx = (t: string): Lexer => new Lexer(t, 'x', new ParseBudget(DEFAULT_PARSE_LIMITS));
  expect(scanJsonString(lx('"a\\"b\\u00e9\\n"'), 0)).toBe(14);
  expect(scanJsonString(lx('"a\\x"'), 0)).toBeLessThan(0);
  expect(scanJsonString(lx('"open'), 0)).toBeLessThan(0);
});

test('deep nesting hits the depth limit', () => {
  expect(limitError(() => parseExpression(`${'['.repeat(100)}${']'.repeat(100)}`)).status).toBe(400);
});
