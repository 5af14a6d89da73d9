import { Lexer } from '../../../src/uri/lexer.js';
import { DEFAULT_PARSE_LIMITS, ParseBudget } from '../../../src/uri/parse-limits.js';
import { groupToKey, groupToParams, parseKeyValue, parseParenGroup } from '../../../src/uri/parse-key.js';
import { bare, syntaxError } from './helpers.js';

const group = (text: string) => {
  const lx = new Lexer(text, 'path', new ParseBudget(DEFAULT_PARSE_LIMITS));
  return parseParenGroup(lx, () => parseKeyValue(lx), () => parseKeyValue(lx));
};

test('a single value is a key, never parameters', () => {
  const g = group("('a')");
  expect(bare(groupToKey(g))).toEqual({ kind: 'single', value: { kind: 'string', value: 'a' } });
  expect(groupToParams(g)).toBeUndefined();
});

test('() is an empty parameter list, never a key', () => {
  const g = group('( )');
  expect(groupToParams(g)).toEqual([]);
  expect(groupToKey(g)).toBeUndefined();
});

test('named values are both a compound key and parameters; aliases become alias references', () => {
  const g = group('(a=1, b=@x)');
  expect(bare(groupToKey(g))).toEqual({ kind: 'named', pairs: [{ name: 'a', value: { kind: 'integer', value: '1' } }, { name: 'b', value: { kind: 'aliasRef', name: 'x' } }] });
  expect(groupToParams(g)?.map((p) => p.name)).toEqual(['a', 'b']);
});

test('a repeated name and a missing value are errors', () => {
  expect(syntaxError(() => group('(a=1,a=2)')).message).toMatch(/'a' is given twice/);
  expect(syntaxError(() => group('(a=)')).message).toMatch(/expected a key value \(a GUID such as .*\) or a @parameterAlias/);
});
