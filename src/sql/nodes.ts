/**
 * The SQL syntax tree the planner builds and the compiler prints (Kysely-style immutable nodes).
 * Identifiers in it come only from the model; every value is a `param` node, bound at execution.
 */

/** A value bound as a statement parameter. Booleans are bound as 0/1 by the compiler. */
export type SqlValue = string | number | bigint | boolean | null | Buffer;

/** Binary SQL operators the compiler knows. */
export type SqlBinaryOperator =
  | '='
  | '<>'
  | '<'
  | '<='
  | '>'
  | '>='
  | 'AND'
  | 'OR'
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '||'
  | 'IS'
  | 'IS NOT'
  | 'IS NOT DISTINCT FROM'
  | 'IS DISTINCT FROM';

/** A scalar SQL expression. */
export type SqlExpr =
  | { readonly kind: 'column'; readonly table: string; readonly column: string }
  | { readonly kind: 'param'; readonly value: SqlValue }
  /** A constant printed into the SQL text: only numbers and NULL, never user strings. */
  | { readonly kind: 'constant'; readonly value: number | null }
  /**
   * A name printed into the SQL text as a string literal: JSON member names from the model and the
   * dialect's own words, never user strings. The compiler refuses anything but letters, digits, `_`,
   * `.` and `@`, so the literal cannot end early. Binding them instead cost a string conversion per
   * name and statement (about 1.8 µs of a GET by key).
   */
  | { readonly kind: 'name'; readonly value: string }
  | { readonly kind: 'binary'; readonly operator: SqlBinaryOperator; readonly left: SqlExpr; readonly right: SqlExpr }
  | { readonly kind: 'not'; readonly operand: SqlExpr }
  | { readonly kind: 'negate'; readonly operand: SqlExpr }
  | { readonly kind: 'isNull'; readonly operand: SqlExpr; readonly negated: boolean }
  /** `operand IS TRUE` (`IS NOT TRUE` when negated): a condition that is never NULL, for engines with a boolean type. */
  | { readonly kind: 'isTrue'; readonly operand: SqlExpr; readonly negated: boolean }
  /** `operand LIKE pattern ESCAPE '<escape>'`; the pattern is a parameter already escaped by the planner. */
  | { readonly kind: 'like'; readonly operand: SqlExpr; readonly pattern: SqlExpr; readonly escape: string }
  | { readonly kind: 'inList'; readonly operand: SqlExpr; readonly items: readonly SqlExpr[]; readonly negated: boolean }
  /** A function call; `name` comes from the dialect's function table, never from input. */
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly SqlExpr[] }
  /** `row_number() OVER (ORDER BY ...)`: the position of a row in an order (window function). */
  | { readonly kind: 'rowNumber'; readonly orderBy: readonly OrderItem[] }
  /** An aggregate of a GROUP BY group: `count(*)` without `arg`, `count(DISTINCT x)` with `distinct`. */
  | { readonly kind: 'aggregate'; readonly fn: 'count' | 'sum' | 'avg' | 'min' | 'max'; readonly arg?: SqlExpr; readonly distinct: boolean }
  | {
      readonly kind: 'case';
      /** `CASE base WHEN v THEN ...`: base is evaluated once and compared with each `when`. */
      readonly base?: SqlExpr;
      readonly whens: readonly { readonly when: SqlExpr; readonly then: SqlExpr }[];
      readonly otherwise?: SqlExpr;
    }
  | { readonly kind: 'exists'; readonly query: SelectNode; readonly negated: boolean }
  | { readonly kind: 'subquery'; readonly query: SelectNode }
  /** A cast; `JSON` marks text that is JSON (engines with a JSON type). */
  | { readonly kind: 'cast'; readonly operand: SqlExpr; readonly type: 'INTEGER' | 'REAL' | 'TEXT' | 'NUMERIC' | 'JSON' }
  /** All columns of a table alias (`t0.*`). */
  | { readonly kind: 'star'; readonly table?: string };

/** One output column of a SELECT. */
export interface SelectColumn {
  readonly expr: SqlExpr;
  readonly alias?: string;
}

/** A table or derived table in FROM / JOIN. */
export type FromItem =
  | { readonly kind: 'table'; readonly table: string; readonly alias: string }
  /** `lateral`: the query may refer to the FROM items before it (PostgreSQL's LATERAL). */
  | { readonly kind: 'derived'; readonly query: SelectNode; readonly alias: string; readonly lateral?: boolean }
  /** `(q1 UNION ALL q2 ...) AS alias`: the queries have the same columns and no ORDER BY or LIMIT. */
  | { readonly kind: 'union'; readonly queries: readonly SelectNode[]; readonly alias: string };

/** A join clause: LEFT or INNER on a condition, or CROSS (every pair of rows; a LATERAL one row per row). */
export type JoinNode =
  | { readonly type: 'LEFT' | 'INNER'; readonly from: FromItem; readonly on: SqlExpr }
  | { readonly type: 'CROSS'; readonly from: FromItem };

/** ORDER BY item. */
export interface OrderItem {
  readonly expr: SqlExpr;
  readonly direction: 'ASC' | 'DESC';
  /** The expression is never NULL (a key): no NULL placement is written, so an index in its default order serves it. */
  readonly notNull?: boolean;
}

/** A SELECT statement. */
export interface SelectNode {
  readonly kind: 'select';
  readonly columns: readonly SelectColumn[];
  /** Absent for a SELECT of expressions only (one row). */
  readonly from?: FromItem;
  readonly joins: readonly JoinNode[];
  readonly where?: SqlExpr;
  /** GROUP BY expressions (aggregated reads, Data Aggregation `groupby`). */
  readonly groupBy?: readonly SqlExpr[];
  readonly orderBy: readonly OrderItem[];
  readonly limit?: SqlExpr;
  readonly offset?: SqlExpr;
  /**
   * Lock the selected rows until the transaction ends (`FOR UPDATE`), where the engine locks rows;
   * SQLite has one writer at a time and needs none.
   */
  readonly lockForUpdate?: boolean;
}

/** An INSERT of one row. */
export interface InsertNode {
  readonly kind: 'insert';
  readonly table: string;
  readonly columns: readonly string[];
  readonly values: readonly SqlExpr[];
  /** Writes the row only when this holds (`INSERT ... SELECT <values> WHERE <condition>`): no row is written otherwise. */
  readonly onlyIf?: SqlExpr;
  /** RETURNING these columns of the row as written (see Returning). */
  readonly returning?: Returning;
}

/** An UPDATE of the rows matching `where`. */
export interface UpdateNode {
  readonly kind: 'update';
  readonly table: string;
  readonly set: readonly { readonly column: string; readonly value: SqlExpr }[];
  readonly where: SqlExpr;
  /** RETURNING these columns of each row as changed (see Returning). */
  readonly returning?: Returning;
}

/**
 * The columns a write returns, so that it need not be read again. They refer to the written table by
 * its name (SQLite's RETURNING cannot use an alias); subqueries in them (computed properties) work on
 * both engines.
 */
export type Returning = readonly SelectColumn[];

/** A DELETE of the rows matching `where`. */
export interface DeleteNode {
  readonly kind: 'delete';
  readonly table: string;
  readonly where: SqlExpr;
}

/** Any statement the compiler prints. */
export type StatementNode = SelectNode | InsertNode | UpdateNode | DeleteNode;
