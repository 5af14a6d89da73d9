/**
 * SQLite: double-quoted identifiers, `?` placeholders, booleans as 0/1, `IS` for null-safe equality,
 * strftime for date parts, and the JavaScript functions registered by `db/sqlite/sqlite-database.ts` for Unicode
 * case mapping (`odata_tolower`, `odata_toupper`), regular expressions (`odata_matches`) and the true
 * remainder of decimals (`odata_remainder`).
 * Every SQLite-specific spelling of the query layer lives here (DDL text lives in db/).
 */
import type { EngineCapabilities } from '../../sql/engine-capabilities.js';
import type { Dialect, DialectFunction } from '../../sql/dialect.js';
import type { SqlExpr } from '../../sql/nodes.js';
import { quoteIdentifier } from '../../sql/quote-identifier.js';

const call = (name: string, ...args: SqlExpr[]): SqlExpr => ({ kind: 'call', name, args });
const p = (value: string | number): SqlExpr => ({ kind: 'param', value });
const name = (value: string): SqlExpr => ({ kind: 'name', value });
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

const c = (value: number | null): SqlExpr => ({ kind: 'constant', value });
const bin = (operator: '||' | '=' | '<' | '<=' | '>=' | 'AND', left: SqlExpr, right: SqlExpr): SqlExpr => ({ kind: 'binary', operator, left, right });
const concat = (parts: readonly SqlExpr[]): SqlExpr => parts.reduce((a, b) => bin('||', a, b));
const isNull = (e: SqlExpr): SqlExpr => ({ kind: 'isNull', operand: e, negated: false });
const abs = (e: SqlExpr): SqlExpr => call('abs', e);

/**
 * JSON.stringify's spelling of a REAL: integral values below 1e15 as integers (SQLite would write
 * `5.0`); values JavaScript writes without an exponent (1e-4 <= |x| < 1e15) as SQLite writes them
 * when SQLite's text (the same as CAST AS TEXT) is at most 16 characters, i.e. has at most 15
 * significant digits: at most one decimal of 15 or fewer significant digits reads back as a given
 * double, so SQLite's digits are then JavaScript's shortest ones. SQLite writes 17 digits for many
 * doubles that 15 represent (181004266.441296 as 181004266.44129601), so `printf('%.15g')` reading
 * back equal is not the test. Everything else goes through the odata_json_number function
 * registered by db/sqlite/sqlite-database.ts. As a string (`asString`), the same digits are TEXT: String(x) and
 * JSON.stringify(x) spell a finite number alike.
 */
function jsonNumber(e: SqlExpr, double: boolean, asString = false): SqlExpr {
  const fallback = asString ? call('odata_json_number', e, c(2)) : call('json', call('odata_json_number', e, c(double ? 1 : 0)));
  // The CASE below reads e up to five times: fine for a column, not for a computed subquery.
  if (e.kind !== 'column') return fallback;
  const text = (x: SqlExpr): SqlExpr => (asString ? { kind: 'cast', operand: x, type: 'TEXT' } : x);
  return {
    kind: 'case',
    whens: [
      { when: isNull(e), then: c(null) },
      { when: bin('AND', bin('=', e, int(e)), bin('<', abs(e), c(1e15))), then: text(int(e)) },
      {
        when: bin('AND', bin('AND', bin('>=', abs(e), c(0.0001)), bin('<', abs(e), c(1e15))), bin('<=', call('length', { kind: 'cast', operand: e, type: 'TEXT' }), c(16))),
        then: text(e),
      },
    ],
    otherwise: fallback,
  };
}

/** The SQLite dialect. */
/** What SQLite's planners may ask (sql/engine-capabilities.ts). */
const capabilities: EngineCapabilities = {
  plainEqualsForValues: false,
  prefixRange: false,
  storedEntityJson: true,
  // One string instead of a row each pays up to large pages: the bench's `$top=20` page with two expanded collections is 40,040 entities.
  pageTextFits: (entities) => entities <= 50_000,
};

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  capabilities,
  quoteIdentifier,
  rowLocks: false,
  placeholder: () => '?',
  castType: (type) => type,
  typedNull: () => ({ kind: 'constant', value: null }),
  typedValue: (e) => e,
  wideInteger: (e) => e,
  noLimit: '-1',
  nullsOrder: () => '',
  likeEscape: '\\',
  likeEscapeIsDefault: false,
  booleanValue: (value) => (value ? 1 : 0),
  nullSafeEquals: (left, right, negated) => ({ kind: 'binary', operator: negated ? 'IS NOT' : 'IS', left, right }),
  booleanTest: (value) => value,
  isTrue: (e) => ({ kind: 'binary', operator: 'IS', left: e, right: { kind: 'constant', value: 1 } }),
  isNotTrue: (e) => ({ kind: 'binary', operator: 'IS NOT', left: e, right: { kind: 'constant', value: 1 } }),
  functions,
  containsExpr: (haystack, needle) => ({ kind: 'binary', operator: '>', left: call('instr', haystack, needle), right: { kind: 'constant', value: 0 } }),
  textEnd: (text, length) => call('substr', text, { kind: 'negate', operand: length }, length),
  divide: (left, right) => ({ kind: 'binary', operator: '/', left, right }),
  // SQLite's % truncates both operands to integers (NULL for a zero divisor), as integer mod wants.
  integerRemainder: (left, right) => ({ kind: 'binary', operator: '%', left, right }),
  // The true remainder of the decimals the doubles are written as (db/sqlite/sqlite-functions.ts), as PostgreSQL's dialect computes it; NULL for a zero divisor.
  remainder: (left, right) => call('odata_remainder', left, right),
  exactDivide: (left, right) => ({ kind: 'binary', operator: '/', left: { kind: 'cast', operand: left, type: 'REAL' }, right }),
  // JSON subtypes do not survive a subquery boundary in SQLite, so embedded JSON text is re-marked with json().
  jsonObject: (members) => call('json_object', ...members.flatMap((m) => [name(m.key), m.json ? call('json', m.value) : m.value])),
  jsonArrayAgg: (rowJson) => call('coalesce', call('json_group_array', call('json', rowJson)), p('[]')),
  jsonTextArrayAgg: (rowJson) => call('coalesce', concat([p('['), call('group_concat', rowJson, p(',')), p(']')]), p('[]')),
  jsonTextList: (rowJson) => call('group_concat', rowJson, p(',')),
  concat,
  larger: (a, b) => call('max', a, b),
  // `CASE (e = 1)` evaluates e once (it may be an EXISTS subquery); json() of a constant is computed once per statement.
  jsonBoolean: (e) => ({ kind: 'case', base: bin('=', e, c(1)), whens: [{ when: c(1), then: call('json', name('true')) }, { when: c(0), then: call('json', name('false')) }] }),
  jsonNumber,
  rowOrder: (alias) => ({ kind: 'column', table: alias, column: 'rowid' }),
  // Base64 in SQL (lookup tables, arithmetic) measured slower than this one function call per row.
  // The stored ETag while it belongs to the row's version (db/sqlite/sqlite-stored-etags.ts), else computed.
  rowEtag: (version, stored) =>
    stored === undefined
      ? call('odata_etag', version)
      : { kind: 'case', whens: [{ when: bin('=', stored.etagVersion, version), then: stored.etag }], otherwise: call('odata_etag', version) },
  // A bound LIMIT/OFFSET that the planner reads (sqlite3ExprIsInteger on a variable) marks the
  // statement for re-preparation whenever the value is bound, i.e. on every run; a CAST hides it.
  rowLimit: (e) => (e.kind === 'param' ? { kind: 'cast', operand: e, type: 'INTEGER' } : e),
  raiseLimit: (message) => call('odata_raise_limit', message),
  livenessCheck: call('odata_live'),
};
