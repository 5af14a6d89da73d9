/**
 * src/db/sqlite-functions.ts: decimalRemainder, SQLite's `mod` of decimals and doubles: the true
 * remainder of the decimals they are written as, with the dividend's sign, as PostgreSQL's numeric mod().
 */
import { decimalRemainder } from '../../../src/db/sqlite-functions.js';

test.each([
  [7, 0.1, 0],
  [0.3, 0.1, 0],
  [7, 2.5, 2],
  [-7, 2.5, -2],
  [7, -2.5, 2],
  [1.25, 0.5, 0.25],
  [1e21, 7, 6],
  [1.5e-7, 1e-7, 5e-8],
  [10000000000000.5, 0.25, 0],
  [5, 0, null],
])('%p mod %p is %p', (a, b, r) => {
  expect(decimalRemainder(a, b)).toBe(r);
});
