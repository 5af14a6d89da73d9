/** src/sql/statement-cache.ts: a statement is built once per shape; later values go into its parameters. */
import { and, col, constant, eq, param, select } from '../../../src/sql/build.js';
import { compile } from '../../../src/sql/compile.js';
import type { SqlValue } from '../../../src/sql/nodes.js';
import { sqliteDialect } from '../../../src/sql/sqlite-dialect.js';
import { StatementCache, statementsOf } from '../../../src/sql/statement-cache.js';

const build = (v: readonly SqlValue[]) =>
  select({
    columns: [{ expr: constant(1), alias: 'one' }],
    from: { kind: 'table', table: 'items', alias: 'x' },
    // 'kept' is a parameter of the shape itself: it stays whatever the values are.
    where: and(eq(col('x', 'company'), param(v[0] ?? null)), eq(col('x', 'kind'), param('kept')), eq(col('x', 'code'), param(v[1] ?? null))),
  });

test('the same text and parameters as compiling the statement with those values', () => {
  const cache = new StatementCache();
  for (const values of [['c1', 'A'], ['c2', 'B'], ['c1', null]] as SqlValue[][]) {
    expect(cache.compiled('by code', values, build)).toEqual(compile(build(values), sqliteDialect));
  }
});

test('build runs once per shape', () => {
  const cache = new StatementCache();
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

test('one cache per owner object', () => {
  const a = {};
  expect(statementsOf(a)).toBe(statementsOf(a));
  expect(statementsOf(a)).not.toBe(statementsOf({}));
});
