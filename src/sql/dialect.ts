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
  /** Exact division of two numbers (`divby`). */
  exactDivide(left: SqlExpr, right: SqlExpr): SqlExpr;
  /** A JSON object of named values; `json` marks values that are JSON text to embed, not strings. */
  jsonObject(members: readonly { readonly key: string; readonly value: SqlExpr; readonly json: boolean }[]): SqlExpr;
  /** Aggregate: the JSON array of the JSON text values of a group, `[]` when it is empty. */
  jsonArrayAgg(rowJson: SqlExpr): SqlExpr;
}
