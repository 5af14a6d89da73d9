import { SecondSightCache } from '../../../src/util/second-sight-cache.js';

test('nothing the first time, the made value the second time, the kept one after', () => {
  const cache = new SecondSightCache<{ n: number }>(8);
  let made = 0;
  const make = (): { n: number } => ({ n: ++made });
  expect(cache.get('a', make)).toBeUndefined();
  expect(made).toBe(0);
  const second = cache.get('a', make);
  expect(second).toEqual({ n: 1 });
  expect(cache.get('a', make)).toBe(second);
  expect(made).toBe(1);
});

test('a value may be null, and is kept as one', () => {
  const cache = new SecondSightCache<null>(8);
  let calls = 0;
  cache.get('a', () => null);
  expect(cache.get('a', () => (calls++, null))).toBeNull();
  expect(cache.get('a', () => (calls++, null))).toBeNull();
  expect(calls).toBe(1);
});

test('when make throws nothing is kept, and it is called again next time', () => {
  const cache = new SecondSightCache<number>(8);
  cache.get('a', () => 1);
  expect(() => cache.get('a', () => { throw new Error('bad'); })).toThrow('bad');
  expect(cache.get('a', () => 7)).toBe(7);
  expect(cache.get('a', () => 8)).toBe(7);
});

test('cleared when full: a kept key is then seen for the first time again', () => {
  const cache = new SecondSightCache<string>(2);
  cache.get('a', () => 'A');
  expect(cache.get('a', () => 'A')).toBe('A');
  cache.get('b', () => 'B');
  cache.get('c', () => 'C'); // full (a, b): cleared, then c seen once
  expect(cache.get('a', () => 'A2')).toBeUndefined();
  expect(cache.get('c', () => 'C')).toBe('C');
});
