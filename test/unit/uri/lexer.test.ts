import { isIdentifierPart, isIdentifierStart, Lexer } from '../../../src/uri/lexer.js';
import { DEFAULT_PARSE_LIMITS, ParseBudget } from '../../../src/uri/parse-limits.js';
import { UriSyntaxError } from '../../../src/errors/odata-error.js';

const lexer = (text: string, option = '$filter'): Lexer => new Lexer(text, option, new ParseBudget(DEFAULT_PARSE_LIMITS));

test('identifiers: ASCII and Unicode letters, digits after the first, at most 128 characters', () => {
  expect(lexer('_ab1 x').identifier()).toBe('_ab1');
  expect(lexer('Straße/').identifier()).toBe('Straße');
  expect(lexer('1a').identifier()).toBeUndefined();
  expect(isIdentifierStart('Δ')).toBe(true);
  expect(isIdentifierPart('-')).toBe(false);
  expect(() => lexer('a'.repeat(129)).identifier()).toThrow(/at most 128 characters/);
});

test('dotted names stop before a dot that is not followed by a name', () => {
  const lx = lexer('Model.Sub.*');
  expect(lx.text.slice(0, lx.dottedNameEnd())).toBe('Model.Sub');
});

test('whitespace is SP and HTAB; words match case-insensitively at a name boundary', () => {
  const lx = lexer(' \t and x');
  expect(lx.rws()).toBe(true);
  expect(lx.wordAt('AND')).toBe(true);
  expect(lexer('andy').wordAt('and')).toBe(false);
  expect(lexer('$it', 'x').wordAt('$IT', 0, true)).toBe(false);
});

test('a region limits what the lexer sees', () => {
  const lx = new Lexer('a(1)/b', 'path', new ParseBudget(DEFAULT_PARSE_LIMITS), 0, 4);
  lx.pos = 4;
  expect(lx.atEnd).toBe(true);
  expect(lx.char()).toBe('');
});

test('errors say where, in which option, what was expected and what was found', () => {
  const lx = lexer('(a eq 1 and b');
  const e = lx.expected("')'", 8);
  expect(e).toBeInstanceOf(UriSyntaxError);
  expect(e.message).toBe("Syntax error at position 8 in $filter: expected ')' but found 'and'.");
  expect(e.position).toBe(8);
  expect(e.option).toBe('$filter');
  expect(lx.found(13)).toBe('the end of the input');
  expect(lexer('x', 'path').error('bad', 0).message).toBe('Syntax error at position 0 in the resource path: bad.');
});
