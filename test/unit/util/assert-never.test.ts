import { assertNever } from '../../../src/util/assert-never.js';

test('assertNever throws naming the unexpected value', () => {
  expect(() => assertNever('x' as never, 'kind')).toThrow('Unexpected kind: "x"');
});
