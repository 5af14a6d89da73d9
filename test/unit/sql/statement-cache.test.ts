/** src/sql/statement-cache.ts: a statement is built once per shape; later values go into its parameters. */
import { and, col, constant, eq, param, select } from '../../../src/sql/build.js';
import { compile } from '../../../src/sql/compile.js';
import type { SqlValue } from '../../../src/sql/nodes.js';
import { sqliteDialect } from '../../../src/db/sqlite/sqlite-dialect.js';
import { MAX_SHAPES, StatementCache, statementsOf, writesOf } from '../../../src/sql/statement-cache.js';

const build = (v: readonly SqlValue[]) =>
  select({
    columns: [{ expr: constant(1), alias: 'one' }],
    from: { kind: 'table', table: 'items', alias: 'x' },
    // 'kept' is a parameter of the shape itself: it stays whatever the values are.
    where: and(eq(col('x', 'company'), param(v[0] ?? null)), eq(col('x', 'kind'), param('kept')), eq(col('x', 'code'), param(v[1] ?? null))),
  });

test('the same text and parameters as compiling the statement with those values', () => {
  const cache = new StatementCache(sqliteDialect);
  for (const values of [['c1', 'A'], ['c2', 'B'], ['c1', null]] as SqlValue[][]) {
    expect(cache.compiled('by code', values, build)).toEqual(compile(build(values), sqliteDialect));
  }
});

test('build runs once per shape', () => {
  const cache = new StatementCache(sqliteDialect);
  let built = 0;
  const counting = (v: readonly SqlValue[]) => {
    built++;
    return build(v);
  };
  cache.compiled('by code', ['c1', 'A'], counting);
  cache.compiled('by code', ['c2', 'B'], counting);
  cache.compiled('other', ['c2', 'B'], counting);
  expect(built).toBe(2);
});

test('one cache per owner object and dialect', () => {
  const a = {};
  expect(statementsOf(a, sqliteDialect)).toBe(statementsOf(a, sqliteDialect));
  expect(statementsOf(a, sqliteDialect)).not.toBe(statementsOf({}, sqliteDialect));
  expect(statementsOf(a, { ...sqliteDialect })).not.toBe(statementsOf(a, sqliteDialect));
});

test('a bounded cache compiles shapes past its bound each time, without remembering them', () => {
  const cache = new StatementCache(sqliteDialect, MAX_SHAPES);
  let built = 0;
  const counting = (v: readonly SqlValue[]) => {
    built++;
    return build(v);
  };
  for (let i = 0; i < MAX_SHAPES; i++) cache.compiled(`shape ${i}`, ['c1', 'A'], counting);
  expect(built).toBe(MAX_SHAPES);
  cache.compiled('shape 0', ['c2', 'B'], counting);
  expect(built).toBe(MAX_SHAPES);
  const beyond = cache.compiled('one more', ['c3', 'C'], counting);
  cache.compiled('one more', ['c3', 'C'], counting);
  expect(built).toBe(MAX_SHAPES + 2);
  expect(beyond).toEqual(compile(build(['c3', 'C']), sqliteDialect));
});

test('the writes of an owner (shapes clients choose) have their own bounded cache: filling it leaves the owner\'s other shapes cached', () => {
  const owner = {};
  let built = 0;
  const counting = (v: readonly SqlValue[]) => {
    built++;
    return build(v);
  };
  expect(writesOf(owner, sqliteDialect)).toBe(writesOf(owner, sqliteDialect));
  expect(writesOf(owner, sqliteDialect)).not.toBe(statementsOf(owner, sqliteDialect));
  for (let i = 0; i <= MAX_SHAPES; i++) writesOf(owner, sqliteDialect).compiled(`update ${i}`, ['c1', 'A'], counting);
  writesOf(owner, sqliteDialect).compiled(`update ${MAX_SHAPES}`, ['c1', 'A'], counting);
  expect(built).toBe(MAX_SHAPES + 2);
  statementsOf(owner, sqliteDialect).compiled('read', ['c1', 'A'], counting);
  statementsOf(owner, sqliteDialect).compiled('read', ['c2', 'B'], counting);
  expect(built).toBe(MAX_SHAPES + 3);
});
