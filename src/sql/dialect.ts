/**
 * The database seam: how each SQL database spells what the planners build (SQLite: db/sqlite/sqlite-dialect.ts,
 * PostgreSQL: db/postgres/postgres-dialect.ts). Function builders return nodes, not strings, so
 * parameters stay in text order by construction.
 */
import type { CanonicalFunction } from '../query/bound-ast.js';
import type { SelectNode, SqlExpr, SqlValue } from './nodes.js';
import type { EngineCapabilities } from './engine-capabilities.js';

/** Canonical functions the dialect maps (contains/startswith/endswith are planned as LIKE). */
export type DialectFunction = Exclude<CanonicalFunction, 'contains' | 'startswith' | 'endswith' | 'now'>;

/** The query level that reads a row (query/query-scope.ts), where a dialect may join a LATERAL derived table. */
export interface LateralJoins {
  /** Joins `query`, one row that may refer to this level's row, as a LATERAL derived table; returns its alias. */
  joinLateral(query: SelectNode): string;
}

/** A SQL dialect: how an engine spells SQL, and what its planners may ask of it (capabilities). */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** The choices of plan the engine asks for (engine-capabilities.ts). */
  readonly capabilities: EngineCapabilities;
  /** Quotes an identifier taken from the model. */
  quoteIdentifier(name: string): string;
  /**
   * Placeholder text for the n-th (0-based) parameter holding `value`; `assigned` when the value goes
   * into a column (INSERT VALUES, UPDATE SET), whose type it takes.
   */
  placeholder(index: number, value: SqlValue, assigned: boolean): string;
  /**
   * A NULL of a stored type, where the engine must know it (a column a UNION ALL branch fills with NULL:
   * PostgreSQL types an untyped NULL as text); SQLite: plain NULL.
   */
  typedNull(type: 'INTEGER' | 'REAL' | 'TEXT'): SqlExpr;
  /**
   * A value (a parameter) typed as `type` where the engine would otherwise take the type of what it
   * stands beside: PostgreSQL reads `$1` in `int_column = $1` as an integer, so 3000000000 or 1.5 there
   * would fail; SQLite compares values of any type as they are and needs no cast.
   */
  typedValue(e: SqlExpr, type: 'INTEGER' | 'REAL' | 'NUMERIC'): SqlExpr;
  /**
   * An integer operand of `+ - * / %` and negation computed in 64 bits, as SQLite computes every
   * integer: PostgreSQL's integer (Int32) arithmetic fails past 2^31; SQLite: the operand as it is.
   */
  wideInteger(e: SqlExpr): SqlExpr;
  /** The spelling of a CAST's target type. */
  castType(type: Extract<SqlExpr, { kind: 'cast' }>['type']): string;
  /** What LIMIT says for "no limit" before an OFFSET, where the engine needs a LIMIT (SQLite: -1); undefined where OFFSET stands alone. */
  readonly noLimit: string | undefined;
  /** Text after ASC/DESC that puts NULLs first ascending and last descending (OData's order, and SQLite's own). */
  nullsOrder(direction: 'ASC' | 'DESC'): string;
  /** `FOR UPDATE` locks the rows a SELECT reads (false where writers never run side by side: SQLite). */
  readonly rowLocks: boolean;
  /** Escape character for LIKE patterns (LIKE is case-sensitive, as OData requires). */
  readonly likeEscape: string;
  /**
   * true when `likeEscape` is LIKE's own escape character, so no ESCAPE clause is written. PostgreSQL's
   * is the backslash; with `ESCAPE '\'` written, a generic plan called like_escape() on the pattern
   * for every row it tested.
   */
  readonly likeEscapeIsDefault: boolean;
  /** Value bound for a boolean. */
  booleanValue(value: boolean): number | boolean;
  /** Null-safe equality (`null eq null` is true in OData): SQLite `IS`, PostgreSQL `IS NOT DISTINCT FROM`. */
  nullSafeEquals(left: SqlExpr, right: SqlExpr, negated: boolean): SqlExpr;
  /** A stored Boolean (0/1, or a lookup of one) as a condition: where the engine has a boolean type, stored values are not conditions. */
  booleanTest(value: SqlExpr): SqlExpr;
  /** A condition that is true only when `e` is true (never NULL). */
  isTrue(e: SqlExpr): SqlExpr;
  /** A condition that is true when `e` is false or NULL (never NULL). */
  isNotTrue(e: SqlExpr): SqlExpr;
  /** Builders of the canonical functions. */
  readonly functions: Readonly<Record<DialectFunction, (args: readonly SqlExpr[]) => SqlExpr>>;
  /** `instr`-style containment, for a non-literal pattern: true when `needle` occurs in `haystack`. */
  containsExpr(haystack: SqlExpr, needle: SqlExpr): SqlExpr;
  /** The last `length` characters of `text` (endswith with a non-literal suffix). */
  textEnd(text: SqlExpr, length: SqlExpr): SqlExpr;
  /** OData `div`: integer division of integers (truncated toward zero), else the quotient; NULL for a zero divisor. */
  divide(left: SqlExpr, right: SqlExpr): SqlExpr;
  /** OData `mod` of integers: the remainder with the sign of the dividend; NULL for a zero divisor. */
  integerRemainder(left: SqlExpr, right: SqlExpr): SqlExpr;
  /** The remainder of a division with the sign of the dividend, for Decimal and Double operands (OData `mod`). */
  remainder(left: SqlExpr, right: SqlExpr): SqlExpr;
  /** Exact division of two numbers (`divby`). */
  exactDivide(left: SqlExpr, right: SqlExpr): SqlExpr;
  /**
   * A JSON object of named values; `json` marks values that are JSON text to embed, not strings.
   * `level` is the query level whose row the values read, where the dialect may join what it needs;
   * offered only for objects the database's planner counts as costly (see PostgreSQL's).
   */
  jsonObject(members: readonly { readonly key: string; readonly value: SqlExpr; readonly json: boolean }[], level?: LateralJoins): SqlExpr;
  /** Aggregate: the JSON array of the JSON text values of a group, `[]` when it is empty. */
  jsonArrayAgg(rowJson: SqlExpr): SqlExpr;
  /** Aggregate: `[a,b,...]` as plain text from JSON texts (no re-parsing), `[]` for an empty group. */
  jsonTextArrayAgg(rowJson: SqlExpr): SqlExpr;
  /**
   * Aggregate: `a,b,...` of JSON texts, NULL for an empty group: a page's entities, which the caller
   * brackets (the database need not copy the whole page again to add two characters).
   */
  jsonTextList(rowJson: SqlExpr): SqlExpr;
  /** Text concatenation of the parts (a NULL part makes the whole NULL). */
  concat(parts: readonly SqlExpr[]): SqlExpr;
  /** The larger of two numbers (SQLite's two-argument max, PostgreSQL's GREATEST). */
  larger(a: SqlExpr, b: SqlExpr): SqlExpr;
  /** A stored 0/1 boolean as a JSON member value: JSON true/false, NULL stays NULL. */
  jsonBoolean(e: SqlExpr): SqlExpr;
  /**
   * A stored Edm.Decimal/Edm.Double as a JSON member value spelled as JavaScript's JSON.stringify
   * spells the number (the JSON writer of serialize/entity-json.ts); `double` writes non-finite values as
   * strings; `asString` gives the same digits as text, a JSON string (IEEE754Compatible=true, JSON Format §3.2).
   */
  jsonNumber(e: SqlExpr, double: boolean, asString?: boolean): SqlExpr;
  /**
   * A unique order of a table's rows that its indexes already hold (SQLite: the rowid, PostgreSQL: the
   * key column `key`), to break ties where nobody pages through the rows (inside $expand): SQLite's
   * spares a sort by the key per parent row.
   */
  rowOrder(alias: string, key: string): SqlExpr;
  /**
   * A LIMIT or OFFSET value as the statement should carry it. SQLite: `CAST(? AS INTEGER)`, because
   * a bare bound LIMIT makes SQLite 3.53 re-prepare the statement on every execution (the planner
   * reads the bound value), a cost paid by every GET by key.
   */
  rowLimit(e: SqlExpr): SqlExpr;
  /**
   * An expression that fails the statement with a 400 (QueryLimitError) carrying `message`, for
   * limits the database meets while it runs (an expanded collection past its cap). SQLite: the
   * `odata_raise_limit` function registered by db/sqlite/sqlite-database.ts.
   */
  raiseLimit(message: SqlExpr): SqlExpr;
  /**
   * A condition that is true while the running statement may go on and fails it once its time is up,
   * for engines that cannot be interrupted from outside (SQLite: `odata_live()`, registered by the read
   * threads); undefined where the engine cancels statements itself.
   */
  readonly livenessCheck?: SqlExpr;
  /**
   * The weak ETag of a row version, as edm/etag.ts formatEtag writes it (odata_etag, registered by
   * db/sqlite/sqlite-database.ts); with `stored`, the row's stored ETag text is used while its version matches.
   */
  rowEtag(version: SqlExpr, stored?: { readonly etag: SqlExpr; readonly etagVersion: SqlExpr }): SqlExpr;
}
