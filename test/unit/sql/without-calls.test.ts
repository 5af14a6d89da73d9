/**
 * src/sql/without-calls.ts: the calls are gone from the expression, the condition says when it still
 * has the original's value, and both are checked by running them on SQLite with and without the
 * function (every row where the condition holds gives the original's value).
 */
import Database from 'better-sqlite3';
import { allOf, anyOf, exprUses, withoutCalls } from '../../../src/sql/without-calls.js';
import { compile } from '../../../src/sql/compile.js';
import { sqliteDialect } from '../../../src/db/sqlite/sqlite-dialect.js';
import type { SqlExpr } from '../../../src/sql/nodes.js';

const col = (column: string): SqlExpr => ({ kind: 'column', table: 't', column });
const c = (value: number | null): SqlExpr => ({ kind: 'constant', value });
const call = (name: string, ...args: SqlExpr[]): SqlExpr => ({ kind: 'call', name, args });
const bin = (operator: '=' | '<' | '+', left: SqlExpr, right: SqlExpr): SqlExpr => ({ kind: 'binary', operator, left, right });
const removed = (name: string): boolean => name.startsWith('odata_');
const text = (e: SqlExpr | boolean): string => (typeof e === 'boolean' ? String(e) : compile({ kind: 'select', columns: [{ expr: e }], joins: [], orderBy: [] }, sqliteDialect).sql.replace(/^SELECT /, ''));

test('folding: true and false drop out of AND and OR', () => {
  const x = col('x');
  expect(allOf(true, x, true)).toBe(x);
  expect(allOf(x, false)).toBe(false);
  expect(allOf()).toBe(true);
  expect(anyOf(false, x)).toBe(x);
  expect(anyOf(x, true)).toBe(true);
  expect(anyOf()).toBe(false);
});

test('an expression without the calls is itself, always exact', () => {
  const e = call('json_object', { kind: 'name', value: 'a' }, bin('+', col('a'), c(1)));
  expect(withoutCalls(e, removed)).toEqual({ expr: e, exact: true });
});

test("a call in a CASE's ELSE: NULL in its place, exact when a WHEN holds", () => {
  const e: SqlExpr = { kind: 'case', whens: [{ when: bin('=', col('v'), col('w')), then: col('e') }], otherwise: call('odata_etag', col('v')) };
  const r = withoutCalls(e, removed);
  expect(text(r.expr)).toBe('CASE WHEN ("t"."v" = "t"."w") THEN "t"."e" ELSE NULL END');
  expect(text(r.exact)).toBe('("t"."v" = "t"."w")');
  expect(exprUses(r.expr, removed)).toBe(false);
});

test('a CASE with a base compares the base with each WHEN; conditions of several CASEs are joined by AND', () => {
  const one: SqlExpr = { kind: 'case', base: col('b'), whens: [{ when: c(1), then: col('x') }, { when: c(2), then: col('y') }], otherwise: call('odata_f', col('b')) };
  const two: SqlExpr = { kind: 'case', whens: [{ when: { kind: 'isNull', operand: col('d'), negated: false }, then: c(null) }], otherwise: call('json', call('odata_json_number', col('d'), c(0))) };
  const r = withoutCalls(call('json_object', one, two), removed);
  expect(text(r.exact)).toBe('((("t"."b" = 1) OR ("t"."b" = 2)) AND ("t"."d" IS NULL))');
});

test('a call anywhere else makes it never exact: an argument, a WHEN, a THEN, a subquery', () => {
  const f = call('odata_f', col('x'));
  expect(withoutCalls(call('upper', f), removed).exact).toBe(false);
  expect(withoutCalls({ kind: 'case', whens: [{ when: f, then: c(1) }], otherwise: c(2) }, removed).exact).toBe(false);
  expect(withoutCalls({ kind: 'case', whens: [{ when: col('p'), then: f }] }, removed).exact).toBe(false);
  const sub: SqlExpr = { kind: 'subquery', query: { kind: 'select', columns: [{ expr: f }], from: { kind: 'table', table: 'u', alias: 'u' }, joins: [], orderBy: [] } };
  const r = withoutCalls(sub, removed);
  expect(r.exact).toBe(false);
  expect(exprUses(r.expr, removed)).toBe(false);
  expect(exprUses(sub, removed)).toBe(true);
});

test('run on SQLite: where the condition holds, the expression without the function gives what the original gives', () => {
  const db = new Database(':memory:');
  db.function('odata_spell', { deterministic: true }, (v: unknown) => `js:${String(v)}`);
  db.exec('CREATE TABLE "t" ("v" REAL, "w" INTEGER)');
  const insert = db.prepare('INSERT INTO "t" VALUES (?, ?)');
  for (const [v, w] of [[1, 1], [1.5, 2], [null, 3], [1e-7, 4], [2, null]] as const) insert.run(v, w);
  const e: SqlExpr = {
    kind: 'case',
    whens: [
      { when: { kind: 'isNull', operand: col('v'), negated: false }, then: c(null) },
      { when: bin('<', c(0.0001), col('v')), then: col('v') },
    ],
    otherwise: call('odata_spell', col('v')),
  };
  const r = withoutCalls(e, removed);
  const q = compile({ kind: 'select', columns: [{ expr: e, alias: 'full' }, { expr: r.expr, alias: 'pure' }, { expr: r.exact as SqlExpr, alias: 'exact' }], from: { kind: 'table', table: 't', alias: 't' }, joins: [], orderBy: [] }, sqliteDialect);
  const rows = db.prepare(q.sql).all(...q.params) as { full: unknown; pure: unknown; exact: number | null }[];
  expect(rows.filter((x) => x.exact === 1).every((x) => x.full === x.pure)).toBe(true);
  expect(rows.map((x) => x.exact === 1)).toEqual([true, true, true, false, true]);
  // The expression without the function prepares on a connection that lacks it.
  const bare = new Database(':memory:');
  bare.exec('CREATE TABLE "t" ("v" REAL, "w" INTEGER)');
  expect(() => bare.prepare(compile({ kind: 'select', columns: [{ expr: r.expr }], from: { kind: 'table', table: 't', alias: 't' }, joins: [], orderBy: [] }, sqliteDialect).sql)).not.toThrow();
  expect(() => bare.prepare(compile({ kind: 'select', columns: [{ expr: e }], from: { kind: 'table', table: 't', alias: 't' }, joins: [], orderBy: [] }, sqliteDialect).sql)).toThrow(/no such function/);
});
