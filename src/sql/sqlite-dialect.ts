/**
 * SQLite: double-quoted identifiers, `?` placeholders, booleans as 0/1, `IS` for null-safe equality,
 * strftime for date parts, and the JavaScript functions registered by `db/database.ts` for Unicode
 * case mapping (`odata_tolower`, `odata_toupper`) and regular expressions (`odata_matches`).
 * Every SQLite-specific spelling of the query layer lives here (DDL text lives in db/).
 */
import type { Dialect, DialectFunction } from './dialect.js';
import type { SqlExpr } from './nodes.js';

const call = (name: string, ...args: SqlExpr[]): SqlExpr => ({ kind: 'call', name, args });
const p = (value: string | number): SqlExpr => ({ kind: 'param', value });
const int = (e: SqlExpr): SqlExpr => ({ kind: 'cast', operand: e, type: 'INTEGER' });
const arg = (args: readonly SqlExpr[], i: number): SqlExpr => {
  const a = args[i];
  if (a === undefined) throw new Error(`missing function argument ${i}`);
  return a;
};
const part = (format: string) => (args: readonly SqlExpr[]): SqlExpr => int(call('strftime', p(format), arg(args, 0)));

const functions: Record<DialectFunction, (args: readonly SqlExpr[]) => SqlExpr> = {
  length: (a) => call('length', arg(a, 0)),
  indexof: (a) => ({ kind: 'binary', operator: '-', left: call('instr', arg(a, 0), arg(a, 1)), right: { kind: 'constant', value: 1 } }),
  substring: (a) => {
    const start: SqlExpr = { kind: 'binary', operator: '+', left: arg(a, 1), right: { kind: 'constant', value: 1 } };
    return a.length > 2 ? call('substr', arg(a, 0), start, arg(a, 2)) : call('substr', arg(a, 0), start);
  },
  tolower: (a) => call('odata_tolower', arg(a, 0)),
  toupper: (a) => call('odata_toupper', arg(a, 0)),
  trim: (a) => call('trim', arg(a, 0)),
  concat: (a) => ({ kind: 'binary', operator: '||', left: arg(a, 0), right: arg(a, 1) }),
  matchesPattern: (a) => call('odata_matches', arg(a, 0), arg(a, 1)),
  year: part('%Y'),
  month: part('%m'),
  day: part('%d'),
  hour: part('%H'),
  minute: part('%M'),
  second: part('%S'),
  fractionalseconds: (a) => ({ kind: 'binary', operator: '-', left: { kind: 'cast', operand: call('strftime', p('%f'), arg(a, 0)), type: 'REAL' }, right: part('%S')(a) }),
  date: (a) => call('date', arg(a, 0)),
  time: (a) => call('time', arg(a, 0)),
  round: (a) => call('round', arg(a, 0)),
  floor: (a) => call('floor', arg(a, 0)),
  ceiling: (a) => call('ceil', arg(a, 0)),
};

/** The SQLite dialect. */
export const sqliteDialect: Dialect = {
  name: 'sqlite',
  quoteIdentifier: (name) => `"${name.replace(/"/g, '""')}"`,
  placeholder: () => '?',
  likeEscape: '\\',
  booleanValue: (value) => (value ? 1 : 0),
  nullSafeEquals: (left, right, negated) => ({ kind: 'binary', operator: negated ? 'IS NOT' : 'IS', left, right }),
  isTrue: (e) => ({ kind: 'binary', operator: 'IS', left: e, right: { kind: 'constant', value: 1 } }),
  isNotTrue: (e) => ({ kind: 'binary', operator: 'IS NOT', left: e, right: { kind: 'constant', value: 1 } }),
  functions,
  containsExpr: (haystack, needle) => ({ kind: 'binary', operator: '>', left: call('instr', haystack, needle), right: { kind: 'constant', value: 0 } }),
  exactDivide: (left, right) => ({ kind: 'binary', operator: '/', left: { kind: 'cast', operand: left, type: 'REAL' }, right }),
  // JSON subtypes do not survive a subquery boundary in SQLite, so embedded JSON text is re-marked with json().
  jsonObject: (members) => call('json_object', ...members.flatMap((m) => [p(m.key), m.json ? call('json', m.value) : m.value])),
  jsonArrayAgg: (rowJson) => call('coalesce', call('json_group_array', call('json', rowJson)), p('[]')),
};
