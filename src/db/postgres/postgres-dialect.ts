/**
 * PostgreSQL (15 or newer): `$n` placeholders typed by their value (text, bigint, double precision,
 * boolean, bytea; untyped where a column takes the value), IS [NOT] DISTINCT FROM, NULLs placed as
 * SQLite places them, entity JSON built by row_to_json (compact, members in order, no argument limit),
 * and the functions the framework creates in the database (postgres-functions.ts) for Unicode case
 * mapping, regular expressions, time parts, JavaScript's number spelling, ETags and the limit error.
 * The stored forms are SQLite's (db/column-types.ts), so the same values compare and print alike.
 * Every PostgreSQL spelling of the query layer lives here (DDL text lives with the DDL).
 */
import type { EngineCapabilities } from '../../sql/engine-capabilities.js';
import type { Dialect, DialectFunction, LateralJoins } from '../../sql/dialect.js';
import { ecmaToPostgresRegex } from './postgres-regex.js';
import type { SelectNode, SqlExpr } from '../../sql/nodes.js';
import { quoteIdentifier } from '../../sql/quote-identifier.js';

/** The rows of the set counts PostgreSQL keeps (postgres-set-counts.ts): table, company, change. */
export const SET_COUNTS_TABLE = '_setCounts';

const call = (name: string, ...args: SqlExpr[]): SqlExpr => ({ kind: 'call', name, args });
const p = (value: string): SqlExpr => ({ kind: 'param', value });
const c = (value: number | null): SqlExpr => ({ kind: 'constant', value });
const bin = (operator: '||' | '=' | '<' | '>' | '>=' | '+' | '-' | '/' | '%' | 'AND' | 'OR', left: SqlExpr, right: SqlExpr): SqlExpr => ({ kind: 'binary', operator, left, right });
const cast = (operand: SqlExpr, type: Extract<SqlExpr, { kind: 'cast' }>['type']): SqlExpr => ({ kind: 'cast', operand, type });
const arg = (args: readonly SqlExpr[], i: number): SqlExpr => {
  const a = args[i];
  if (a === undefined) throw new Error(`missing function argument ${i}`);
  return a;
};
/** NULL instead of a zero divisor: PostgreSQL fails a division by zero where SQLite answers NULL. */
const nonZero = (e: SqlExpr): SqlExpr => call('nullif', e, c(0));
/**
 * A 64-bit position or length as the Int32 substr() takes, held to Int32's range: a position past it
 * is past the end of any text alike (SQLite takes 64-bit positions; PostgreSQL's would fail).
 */
const int4 = (e: SqlExpr): SqlExpr => call('int4', call('least', call('greatest', e, c(-2147483648)), c(2147483647)));
/** Characters `from` (1-based) for `length` of stored ISO text. */
const slice = (e: SqlExpr, from: number, length: number): SqlExpr => call('substr', e, c(from), c(length));
/** A date part of a stored `YYYY-MM-DD...` text as an integer. */
const datePart = (from: number, length: number) => (a: readonly SqlExpr[]): SqlExpr => cast(slice(arg(a, 0), from, length), 'INTEGER');
/** A time part of a stored DateTimeOffset or TimeOfDay (postgres-functions.ts): 0 hour, 1 minute, 2 second. */
const timePart = (n: number) => (a: readonly SqlExpr[]): SqlExpr => call('odata_time_part', arg(a, 0), c(n));
/**
 * A number rounded half away from zero, as SQLite's round(): PostgreSQL rounds a double half to even,
 * so it is rounded as the numeric of its shortest text (exact: the digits JavaScript writes).
 */
const roundHalfAway = (e: SqlExpr): SqlExpr => cast(call('round', cast(cast(e, 'TEXT'), 'NUMERIC')), 'REAL');

const functions: Record<DialectFunction, (args: readonly SqlExpr[]) => SqlExpr> = {
  length: (a) => call('length', arg(a, 0)),
  indexof: (a) => bin('-', call('strpos', arg(a, 0), arg(a, 1)), c(1)),
  // OData's start is 0-based; a negative length is taken as none (PostgreSQL refuses it, SQLite counts backwards).
  substring: (a) => (a.length > 2 ? call('substr', arg(a, 0), int4(bin('+', cast(arg(a, 1), 'INTEGER'), c(1))), int4(call('greatest', cast(arg(a, 2), 'INTEGER'), c(0)))) : call('substr', arg(a, 0), int4(bin('+', cast(arg(a, 1), 'INTEGER'), c(1))))),
  tolower: (a) => call('odata_tolower', arg(a, 0)),
  toupper: (a) => call('odata_toupper', arg(a, 0)),
  trim: (a) => call('trim', arg(a, 0)),
  concat: (a) => bin('||', arg(a, 0), arg(a, 1)),
  // A literal pattern (ECMAScript) is translated into an ARE of the same meaning (postgres-regex.ts); a
  // pattern read from a column runs as ARE.
  matchesPattern: (a) => {
    const pattern = arg(a, 1);
    const translated = pattern.kind === 'param' && typeof pattern.value === 'string' ? p(ecmaToPostgresRegex(pattern.value)) : pattern;
    return call('odata_matches', arg(a, 0), translated);
  },
  year: datePart(1, 4),
  month: datePart(6, 2),
  day: datePart(9, 2),
  hour: timePart(0),
  minute: timePart(1),
  second: timePart(2),
  fractionalseconds: (a) => call('odata_fractional_seconds', arg(a, 0)),
  date: (a) => slice(arg(a, 0), 1, 10),
  time: (a) => slice(arg(a, 0), 12, 8),
  round: (a) => roundHalfAway(arg(a, 0)),
  floor: (a) => call('floor', arg(a, 0)),
  ceiling: (a) => call('ceil', arg(a, 0)),
};

const concat = (parts: readonly SqlExpr[]): SqlExpr => parts.reduce((a, b) => bin('||', a, b));
const abs = (e: SqlExpr): SqlExpr => call('abs', e);
const isNull = (e: SqlExpr): SqlExpr => ({ kind: 'isNull', operand: e, negated: false });

/**
 * JSON.stringify's spelling of a stored double, as JSON (`asString`: the text String() gives, for a
 * JSON string). PostgreSQL writes the shortest digits that read back as the double, as JavaScript
 * does, and spells them as JavaScript does for 1e-4 <= |x| < 1e15: those (the common case) are written
 * as they are; zero, NaN, the infinities and exponents go through odata_json_number/odata_number_text.
 */
function jsonNumber(e: SqlExpr, double: boolean, asString = false): SqlExpr {
  const fallback = asString ? call('odata_number_text', e) : call('odata_json_number', e, { kind: 'name', value: double ? 'double' : 'decimal' });
  // The CASE reads e up to three times: fine for a column, not for a computed subquery.
  if (e.kind !== 'column') return fallback;
  const plain = bin('AND', bin('>=', abs(e), c(0.0001)), bin('<', abs(e), c(1e15)));
  return { kind: 'case', whens: [{ when: isNull(e), then: c(null) }, { when: plain, then: asString ? cast(e, 'TEXT') : call('to_json', e) }], otherwise: fallback };
}

/** The longest identifier PostgreSQL keeps whole (NAMEDATALEN - 1 bytes); longer ones are cut. */
const MAX_IDENTIFIER_BYTES = 63;

/**
 * A JSON object as text: `row_to_json` of a one-row SELECT whose column aliases are the member names
 * (compact as SQLite's json_object writes it, members in order, no 100-argument limit as
 * json_build_object has). JSON members (`json`) are cast to json, so they are embedded, not quoted.
 * Names longer than an identifier can be are written by concatenation instead.
 *
 * Given the `level` that reads the row, the one-row SELECT is joined there as a LATERAL derived
 * table and the object is `row_to_json` of its alias: PostgreSQL pulls the SELECT up into the
 * level's own columns, where a scalar subquery is a subplan run per row.
 *
 * Callers offer the level only for an object the planner counts as costly (with its `@odata.etag`:
 * plan-entity-json.ts). The planner postpones a costly column past a sort with a LIMIT, so the
 * object is built for the rows kept; it computes a cheap one (plain columns) below the sort, for
 * every row sorted, and in a parallel plan in the workers, where a scalar subquery (parallel
 * restricted) stays above the Gather: 2.4x slower on 120,000 comments with odata.metadata=none. Nor
 * when a member is JSON text of an expansion: those subqueries may call the volatile
 * odata_raise_limit, and PostgreSQL does not pull up a SELECT with a volatile function.
 * test/unit/db/postgres/postgres-dialect.test.ts checks the plans.
 */
function jsonObject(members: readonly { readonly key: string; readonly value: SqlExpr; readonly json: boolean }[], level?: LateralJoins): SqlExpr {
  const value = (m: (typeof members)[number]): SqlExpr => (m.json ? { kind: 'cast', operand: m.value, type: 'JSON' } : m.value);
  if (members.some((m) => Buffer.byteLength(m.key) > MAX_IDENTIFIER_BYTES)) {
    const parts: SqlExpr[] = [];
    members.forEach((m, i) => {
      parts.push(p(`${i === 0 ? '{' : ','}${JSON.stringify(m.key)}:`), call('coalesce', cast(call('to_json', value(m)), 'TEXT'), p('null')));
    });
    parts.push(p(members.length === 0 ? '{}' : '}'));
    return concat(parts);
  }
  const row: SelectNode = { kind: 'select', columns: members.map((m) => ({ expr: value(m), alias: m.key })), joins: [], orderBy: [] };
  if (level !== undefined && !members.some((m) => m.json)) {
    return cast(call('row_to_json', { kind: 'star', table: level.joinLateral(row) }), 'TEXT');
  }
  const object: SelectNode = {
    kind: 'select',
    columns: [{ expr: call('row_to_json', { kind: 'star', table: '_j' }) }],
    from: { kind: 'derived', query: row, alias: '_j' },
    joins: [],
    orderBy: [],
  };
  return cast({ kind: 'subquery', query: object }, 'TEXT');
}

/** `[a,b,...]` of a group's JSON texts in the order of its (ordered) input, `[]` for an empty group. */
const jsonTextArrayAgg = (rowJson: SqlExpr): SqlExpr => call('coalesce', concat([p('['), call('string_agg', rowJson, p(',')), p(']')]), p('[]'));

/**
 * `$n`, untyped: PostgreSQL takes the type from where it stands (the column compared or assigned, so
 * an index serves it). Never typed by the value: compiled statements are cached by shape
 * (sql/statement-cache.ts, the plan cache) and run again with values of other JavaScript types.
 */
const placeholder = (index: number): string => `$${index + 1}`;

const CAST_TYPES = { INTEGER: 'bigint', REAL: 'double precision', TEXT: 'text', NUMERIC: 'numeric', JSON: 'json' } as const;

/** The PostgreSQL dialect. */
/** What PostgreSQL's planners may ask (sql/engine-capabilities.ts). */
const capabilities: EngineCapabilities = {
  plainEqualsForValues: true,
  prefixRange: true,
  storedEntityJson: true,
  // A page text costs the server no more than its rows up to about 40 KB, and far more beyond under
  // concurrency; 1,500 members is about 45 KB (about 30 bytes a member).
  pageTextFits: (entities, members) => entities * members <= 1_500,
  keptSetCount: (table, companyId, alias) => {
    const column = (name: string): SqlExpr => ({ kind: 'column', table: 'sc', column: name });
    return {
      kind: 'select',
      columns: [{ expr: cast(call('coalesce', call('sum', column('n')), c(0)), 'INTEGER'), alias }],
      from: { kind: 'table', table: SET_COUNTS_TABLE, alias: 'sc' },
      joins: [],
      where: bin('AND', bin('=', column('table'), p(table)), bin('=', column('companyId'), companyId)),
      orderBy: [],
    };
  },
};

export const postgresDialect: Dialect = {
  name: 'postgres',
  rowLocks: true,
  capabilities,
  quoteIdentifier,
  placeholder,
  castType: (type) => CAST_TYPES[type],
  typedNull: (type) => cast(c(null), type),
  typedValue: (e, type) => cast(e, type),
  wideInteger: (e) => cast(e, 'INTEGER'),
  noLimit: undefined,
  nullsOrder: (direction) => (direction === 'ASC' ? ' NULLS FIRST' : ' NULLS LAST'),
  likeEscape: '\\',
  likeEscapeIsDefault: true,
  // Booleans are stored as smallint 0/1, as SQLite stores them; a bare parameter in a condition takes 1/0 as true/false.
  booleanValue: (value) => (value ? 1 : 0),
  nullSafeEquals: (left, right, negated) => ({ kind: 'binary', operator: negated ? 'IS DISTINCT FROM' : 'IS NOT DISTINCT FROM', left, right }),
  booleanTest: (value) => bin('=', value, c(1)),
  isTrue: (e) => ({ kind: 'isTrue', operand: e, negated: false }),
  isNotTrue: (e) => ({ kind: 'isTrue', operand: e, negated: true }),
  functions,
  containsExpr: (haystack, needle) => bin('>', call('strpos', haystack, needle), c(0)),
  textEnd: (text, length) => call('right', text, length),
  divide: (left, right) => bin('/', left, nonZero(right)),
  integerRemainder: (left, right) => bin('%', left, nonZero(right)),
  // The remainder of the decimals the doubles are written as (their shortest text), exactly: 0.3 mod 0.1 is 0.
  remainder: (left, right) => cast(call('mod', cast(cast(left, 'TEXT'), 'NUMERIC'), nonZero(cast(cast(right, 'TEXT'), 'NUMERIC'))), 'REAL'),
  exactDivide: (left, right) => bin('/', cast(left, 'REAL'), nonZero(right)),
  jsonObject,
  jsonArrayAgg: jsonTextArrayAgg,
  jsonTextArrayAgg,
  jsonTextList: (rowJson) => call('string_agg', rowJson, p(',')),
  concat,
  larger: (a, b) => call('GREATEST', a, b),
  // int4() takes a stored smallint 0/1 and a condition (a computed `exists`) alike (boolean has no cast to bigint); NULL stays NULL.
  jsonBoolean: (e) => bin('=', call('int4', e), c(1)),
  jsonNumber,
  rowOrder: (alias, key) => ({ kind: 'column', table: alias, column: key }),
  // A number bound as bigint: LIMIT takes a bigint, and a double would be rounded to one.
  rowLimit: (e) => (e.kind === 'param' && typeof e.value === 'number' ? { kind: 'param', value: BigInt(e.value) } : e),
  raiseLimit: (message) => call('odata_raise_limit', message),
  rowEtag: (version, stored) =>
    stored === undefined
      ? call('odata_etag', version)
      : { kind: 'case', whens: [{ when: bin('=', stored.etagVersion, version), then: stored.etag }], otherwise: call('odata_etag', version) },
};
