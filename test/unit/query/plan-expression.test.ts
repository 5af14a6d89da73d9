/**
 * src/query/plan-expression.ts: the code-point range of a `startswith` prefix (the PostgreSQL dialect
 * states it beside the LIKE so that a prepared statement's plan narrows an index range).
 */
import { prefixRange } from '../../../src/query/plan-expression.js';

test.each([
  ['ab', { from: 'ab', to: 'ac' }],
  ['é', { from: 'é', to: 'ê' }],
  ['😀', { from: '😀', to: '😁' }],
  // The last code point before the surrogates is followed by the first after them.
  ['x\uD7FF', { from: 'x\uD7FF', to: 'x\uE000' }],
  // No code point follows U+10FFFF: the one before it is raised, or the range stays open.
  ['a\u{10FFFF}', { from: 'a\u{10FFFF}', to: 'b' }],
  ['\u{10FFFF}\u{10FFFF}', { from: '\u{10FFFF}\u{10FFFF}' }],
])('prefix %j: %j', (prefix, range) => {
  expect(prefixRange(prefix)).toEqual(range);
});

test('the empty prefix has no range (every string starts with it)', () => {
  expect(prefixRange('')).toBeUndefined();
});

test('every string in the range starts with the prefix or sorts between, and none outside starts with it', () => {
  const prefix = 'ab';
  const { from, to } = prefixRange(prefix) as { from: string; to: string };
  const cmp = (a: string, b: string): number => {
    const x = [...a].map((c) => c.codePointAt(0) as number);
    const y = [...b].map((c) => c.codePointAt(0) as number);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
    return x.length - y.length;
  };
  for (const s of ['a', 'ab', 'ab\u{10FFFF}', 'abz', 'ac', 'aa\u{10FFFF}', 'b', 'ab😀']) {
    const inRange = cmp(s, from) >= 0 && cmp(s, to) < 0;
    if (s.startsWith(prefix)) expect(inRange).toBe(true);
  }
  expect(cmp('ac', to)).toBe(0);
});
