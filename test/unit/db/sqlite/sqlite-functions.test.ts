/**
 * src/db/sqlite/sqlite-functions.ts: decimalRemainder, SQLite's `mod` of decimals and doubles: the true
 * remainder of the decimals they are written as, with the dividend's sign, as PostgreSQL's numeric mod().
 * And the names of the functions it registers.
 */
import Database from 'better-sqlite3';
import { decimalRemainder, isServiceFunction, registerSqliteFunctions } from '../../../../src/db/sqlite/sqlite-functions.js';

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

test('every function registerSqliteFunctions registers is one isServiceFunction names (what triggers must not call)', () => {
  const db = new Database(':memory:');
  const names = (): Set<string> => new Set((db.prepare('SELECT name FROM pragma_function_list').all() as { name: string }[]).map((r) => r.name));
  const before = names();
  registerSqliteFunctions(db);
  const added = [...names()].filter((n) => !before.has(n));
  expect(added.length).toBeGreaterThan(5);
  expect(added.filter((n) => !isServiceFunction(n))).toEqual([]);
  expect([...before].filter(isServiceFunction)).toEqual([]);
});
