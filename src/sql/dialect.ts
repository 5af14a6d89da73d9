/**
 * The database seam: everything that differs between SQL databases. SQLite now, PostgreSQL later.
 */
import type { SqlExpr } from './nodes.js';

/** A SQL dialect; its functions build nodes, not strings, so parameters stay in text order. */
export interface Dialect {
  readonly name: 'sqlite';
  /** Quotes an identifier taken from the model. */
  quoteIdentifier(name: string): string;
  /** Placeholder text for the n-th (0-based) parameter. */
  placeholder(index: number): string;
  /** Escape character for LIKE patterns. */
  readonly likeEscape: string;
  /** Value bound for a boolean. */
  booleanValue(value: boolean): number | boolean;
  /** `EXISTS(...)` as a boolean-typed value expression (0/1 in SQLite). */
  existsAsValue(exists: SqlExpr): SqlExpr;
}
