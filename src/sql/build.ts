/**
 * Small constructors for SQL nodes, so planners read as SQL instead of object literals.
 */
import type { SelectNode, SqlBinaryOperator, SqlExpr, SqlValue } from './nodes.js';

/** `alias.column` */
export const col = (table: string, column: string): SqlExpr => ({ kind: 'column', table, column });

/** A bound parameter. */
export const param = (value: SqlValue): SqlExpr => ({ kind: 'param', value });

/** A numeric constant or NULL in the SQL text. */
export const constant = (value: number | null): SqlExpr => ({ kind: 'constant', value });

/** `left <op> right` */
export const bin = (operator: SqlBinaryOperator, left: SqlExpr, right: SqlExpr): SqlExpr => ({
  kind: 'binary',
  operator,
  left,
  right,
});

/** `a = b` */
export const eq = (left: SqlExpr, right: SqlExpr): SqlExpr => bin('=', left, right);

/** AND of all given conditions (undefined ones skipped); undefined when none remain. */
export function and(...conditions: readonly (SqlExpr | undefined)[]): SqlExpr | undefined {
  let result: SqlExpr | undefined;
  for (const c of conditions) {
    if (c === undefined) continue;
    result = result === undefined ? c : bin('AND', result, c);
  }
  return result;
}

/** A SELECT with defaults for the optional clauses. */
export function select(parts: Partial<SelectNode> & Required<Pick<SelectNode, 'from'>>): SelectNode {
  return { kind: 'select', columns: [], joins: [], orderBy: [], ...parts };
}
