/**
 * The database seam: everything that differs between SQL databases. SQLite now, PostgreSQL later.
 * Function builders return nodes, not strings, so parameters stay in text order by construction.
 */
import type { CanonicalFunction } from '../query/bound-ast.js';
import type { SqlExpr } from './nodes.js';

/** Canonical functions the dialect maps (contains/startswith/endswith are planned as LIKE). */
export type DialectFunction = Exclude<CanonicalFunction, 'contains' | 'startswith' | 'endswith' | 'now'>;

/** A SQL dialect. */
export interface Dialect {
  readonly name: 'sqlite';
  /** Quotes an identifier taken from the model. */
  quoteIdentifier(name: string): string;
  /** `FOR UPDATE` locks the rows a SELECT reads (false where writers never run side by side: SQLite). */
  readonly rowLocks: boolean;
  /** Placeholder text for the n-th (0-based) parameter. */
  placeholder(index: number): string;
  /** Escape character for LIKE patterns (LIKE is case-sensitive, as OData requires). */
  readonly likeEscape: string;
  /** Value bound for a boolean. */
  booleanValue(value: boolean): number | boolean;
  /** Null-safe equality (`null eq null` is true in OData): SQLite `IS`, PostgreSQL `IS NOT DISTINCT FROM`. */
  nullSafeEquals(left: SqlExpr, right: SqlExpr, negated: boolean): SqlExpr;
  /** A condition that is true only when `e` is true (never NULL). */
  isTrue(e: SqlExpr): SqlExpr;
  /** A condition that is true when `e` is false or NULL (never NULL). */
  isNotTrue(e: SqlExpr): SqlExpr;
  /** Builders of the canonical functions. */
  readonly functions: Readonly<Record<DialectFunction, (args: readonly SqlExpr[]) => SqlExpr>>;
  /** `instr`-style containment, for a non-literal pattern: true when `needle` occurs in `haystack`. */
  containsExpr(haystack: SqlExpr, needle: SqlExpr): SqlExpr;
  /** The remainder of a division with the sign of the dividend, for Decimal and Double operands (OData `mod`). */
  remainder(left: SqlExpr, right: SqlExpr): SqlExpr;
  /** Exact division of two numbers (`divby`). */
  exactDivide(left: SqlExpr, right: SqlExpr): SqlExpr;
  /** A JSON object of named values; `json` marks values that are JSON text to embed, not strings. */
  jsonObject(members: readonly { readonly key: string; readonly value: SqlExpr; readonly json: boolean }[]): SqlExpr;
  /** Aggregate: the JSON array of the JSON text values of a group, `[]` when it is empty. */
  jsonArrayAgg(rowJson: SqlExpr): SqlExpr;
  /** Aggregate: `[a,b,...]` as plain text from JSON texts (no re-parsing), `[]` for an empty group. */
  jsonTextArrayAgg(rowJson: SqlExpr): SqlExpr;
  /** Text concatenation of the parts (a NULL part makes the whole NULL). */
  concat(parts: readonly SqlExpr[]): SqlExpr;
  /** A stored 0/1 boolean as a JSON member value: JSON true/false, NULL stays NULL. */
  jsonBoolean(e: SqlExpr): SqlExpr;
  /**
   * A stored Edm.Decimal/Edm.Double as a JSON member value spelled as JavaScript's JSON.stringify
   * spells the number (the JSON writer of serialize/entity-json.ts); `double` writes non-finite values as
   * strings; `asString` gives the same digits as text, a JSON string (IEEE754Compatible=true, JSON Format §3.2).
   */
  jsonNumber(e: SqlExpr, double: boolean, asString?: boolean): SqlExpr;
  /**
   * A unique order of a table's rows that its indexes already hold (SQLite: the rowid), to break ties
   * where nobody pages through the rows (inside $expand): it spares a sort by the key per parent row.
   */
  rowOrder(alias: string): SqlExpr;
  /**
   * A LIMIT or OFFSET value as the statement should carry it. SQLite: `CAST(? AS INTEGER)`, because
   * a bare bound LIMIT makes SQLite 3.53 re-prepare the statement on every execution (the planner
   * reads the bound value): 10 µs on a GET by key, measured.
   */
  rowLimit(e: SqlExpr): SqlExpr;
  /**
   * An expression that fails the statement with a 400 (QueryLimitError) carrying `message`, for
   * limits the database meets while it runs (an expanded collection past its cap). SQLite: the
   * `odata_raise_limit` function registered by db/database.ts.
   */
  raiseLimit(message: SqlExpr): SqlExpr;
  /**
   * A condition that is true while the running statement may go on and fails it once its time is up,
   * for engines that cannot be interrupted from outside (SQLite: `odata_live()`, registered by the read
   * threads); undefined where the engine cancels statements itself.
   */
  readonly livenessCheck?: SqlExpr;
  /**
   * The weak ETag of a row version, as serialize/etag.ts formatEtag writes it (odata_etag, registered by
   * db/database.ts); with `stored`, the row's stored ETag text is used while its version matches.
   */
  rowEtag(version: SqlExpr, stored?: { readonly etag: SqlExpr; readonly etagVersion: SqlExpr }): SqlExpr;
}
