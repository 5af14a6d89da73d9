/**
 * src/db/postgres/postgres-regex.ts: an ECMAScript pattern becomes an ARE of the same meaning (the HTTP
 * test test/http/matches-pattern.test.ts runs the translations on PostgreSQL against JavaScript's answers).
 */
import { ecmaToPostgresRegex } from '../../../../src/db/postgres/postgres-regex.js';
import { NotImplementedError } from '../../../../src/errors/odata-error.js';

test.each([
  ['^[A-Z]{3}$', '^[A-Z]{3}$'],
  ['line.here', 'line[^\\n\\r\\u2028\\u2029]here'],
  ['\\d+\\D', '[0-9]+[^0-9]'],
  ['[\\w.-]', '[A-Za-z0-9_\\u002e-]'],
  ['a\\.b%', 'a\\u002eb\\u0025'],
  ['(?:ab)+(?=c)(?<!d)(x)\\1', '(?:ab)+(?=c)(?<!d)(x)\\1'],
  ['\\x41\\u{1F600}\\ud83d\\ude00', '\\u0041\\U0001f600\\U0001f600'],
  ['[\\b]', '[\\u0008]'],
])('%j → %j', (ecma, are) => {
  expect(ecmaToPostgresRegex(ecma)).toBe(are);
});

test('\\b is a word boundary over ASCII word characters, by lookaround', () => {
  expect(ecmaToPostgresRegex('\\bx')).toBe('(?:(?<=[A-Za-z0-9_])(?![A-Za-z0-9_])|(?<![A-Za-z0-9_])(?=[A-Za-z0-9_]))x');
});

test.each(['\\p{L}', '\\P{Lu}', '(?<n>a)', '\\k<n>', '[]', '[^]', '[\\D]'])('%j has no faithful ARE form: 501', (ecma) => {
  expect(() => ecmaToPostgresRegex(ecma)).toThrow(NotImplementedError);
});
