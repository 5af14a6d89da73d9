import { deepFreeze } from '../../../src/util/deep-freeze.js';

test('freezes every object and array of a graph, cycles included, and gives it back', () => {
  const inner = { n: 1, list: [{ x: 1 }] };
  const graph: Record<string, unknown> = { inner, text: 'a' };
  graph['self'] = graph;
  expect(deepFreeze(graph)).toBe(graph);
  for (const o of [graph, inner, inner.list, inner.list[0]]) expect(Object.isFrozen(o)).toBe(true);
  expect(() => {
    'use strict';
    (inner as { n: number }).n = 2;
  }).toThrow(TypeError);
});

test("a Map's values are frozen; primitives and null come back as they are", () => {
  const value = { deep: { y: 2 } };
  const map = new Map([['k', value]]);
  deepFreeze(map);
  expect(Object.isFrozen(value)).toBe(true);
  expect(Object.isFrozen(value.deep)).toBe(true);
  expect(deepFreeze(null)).toBeNull();
  expect(deepFreeze(3)).toBe(3);
  expect(deepFreeze('s')).toBe('s');
});
