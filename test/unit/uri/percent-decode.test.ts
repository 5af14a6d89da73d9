import { percentDecode } from '../../../src/uri/percent-decode.js';
import { syntaxError } from './helpers.js';

test('decodes %XX as UTF-8, leaves + alone', () => {
  expect(percentDecode("%27O%27%27Neil%27", 'x')).toBe("'O''Neil'");
  expect(percentDecode('a%20b+c', 'x')).toBe('a b+c');
  expect(percentDecode('%CE%94%e2%82%ac', 'x')).toBe('Δ€');
  expect(percentDecode('plain', 'x')).toBe('plain');
});

test('a bad escape is a 400 at its position', () => {
  const e = syntaxError(() => percentDecode('ab%2', '$filter', 10));
  expect(e.position).toBe(12);
  expect(e.message).toMatch(/write %25 for a literal '%'/);
  expect(syntaxError(() => percentDecode('%FF', '$filter')).message).toMatch(/not valid UTF-8/);
});
