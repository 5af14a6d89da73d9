/**
 * Prints a SQL node tree as `{ sql, params }`. Pure: values are never inlined into the text, and
 * identifiers are quoted by the dialect; every switch over a node kind is exhaustive.
 */
import { assertNever } from '../util/assert-never.js';
import type { Dialect } from './dialect.js';
import type { FromItem, OrderItem, Returning, SelectColumn, SelectNode, SqlExpr, SqlValue, StatementNode } from './nodes.js';

/** What a `name` node may print between single quotes. */
const NAME_LITERAL = /^[A-Za-z0-9_.@]+$/;

/** A statement ready to run: its text and positional parameters. */
export interface CompiledQuery {
  readonly sql: string;
  readonly params: readonly SqlValue[];
}

/** How to compile. */
export interface CompileOptions {
  /**
   * Makes the statement cancellable where the engine cannot be interrupted from outside (SQLite): the
   * dialect's liveness check is the first condition of the statement's SELECT and of every SELECT with
   * another SELECT inside, so it runs once per row of every level that repeats work, and can end the
   * statement when its time is up (db/sqlite/sqlite-read-pool.ts). A SELECT with none inside (the innermost scan of
   * a lambda) goes without: its work between two checks is one scan, and a check per innermost row
   * made a nested lambda three times slower (64 million checks for 400 comments nested twice).
   */
  readonly cancellable?: boolean;
}

/** Compiles a statement for a dialect. */
export function compile(node: StatementNode, dialect: Dialect, options: CompileOptions = {}): CompiledQuery {
  const w = new SqlWriter(dialect, options.cancellable === true ? dialect.livenessCheck : undefined);
  writeStatement(w, node);
  return { sql: w.text, params: w.params };
}

class SqlWriter {
  text = '';
  readonly params: SqlValue[] = [];
  constructor(
    readonly dialect: Dialect,
    readonly liveness: SqlExpr | undefined,
  ) {}
  write(s: string): void {
    this.text += s;
  }
  ident(name: string): void {
    this.text += this.dialect.quoteIdentifier(name);
  }
  /** A parameter; `assigned` when its value goes into a column (INSERT VALUES, UPDATE SET), whose type it takes. */
  param(value: SqlValue, assigned = false): void {
    this.text += this.dialect.placeholder(this.params.length, value, assigned);
    this.params.push(typeof value === 'boolean' ? this.dialect.booleanValue(value) : value);
  }
  /** Writes the items separated by ", ". */
  list<T>(items: readonly T[], each: (item: T) => void): void {
    items.forEach((item, i) => {
      if (i > 0) this.text += ', ';
      each(item);
    });
  }
}

function writeStatement(w: SqlWriter, node: StatementNode): void {
  switch (node.kind) {
    case 'select':
      return writeSelect(w, node, true);
    case 'insert':
      w.write('INSERT INTO ');
      w.ident(node.table);
      w.write(' (');
      w.list(node.columns, (c) => w.ident(c));
      w.write(node.onlyIf === undefined ? ') VALUES (' : ') SELECT ');
      w.list(node.values, (v) => (v.kind === 'param' ? w.param(v.value, true) : writeExpr(w, v)));
      if (node.onlyIf === undefined) w.write(')');
      else {
        w.write(' WHERE ');
        writeExpr(w, node.onlyIf);
      }
      writeReturning(w, node.returning);
      return;
    case 'update':
      w.write('UPDATE ');
      w.ident(node.table);
      w.write(' SET ');
      w.list(node.set, (s) => {
        w.ident(s.column);
        w.write(' = ');
        if (s.value.kind === 'param') w.param(s.value.value, true);
        else writeExpr(w, s.value);
      });
      w.write(' WHERE ');
      writeExpr(w, node.where);
      writeReturning(w, node.returning);
      return;
    case 'delete':
      w.write('DELETE FROM ');
      w.ident(node.table);
      w.write(' WHERE ');
      writeExpr(w, node.where);
      return;
    default:
      return assertNever(node, 'statement');
  }
}

/** true when an expression holds a SELECT. */
function exprHasSelect(e: SqlExpr): boolean {
  switch (e.kind) {
    case 'column':
    case 'param':
    case 'constant':
    case 'name':
    case 'star':
      return false;
    case 'binary':
      return exprHasSelect(e.left) || exprHasSelect(e.right);
    case 'not':
    case 'negate':
    case 'isNull':
    case 'isTrue':
    case 'cast':
      return exprHasSelect(e.operand);
    case 'like':
      return exprHasSelect(e.operand) || exprHasSelect(e.pattern);
    case 'inList':
      return exprHasSelect(e.operand) || e.items.some(exprHasSelect);
    case 'call':
      return e.args.some(exprHasSelect);
    case 'case':
      return (e.base !== undefined && exprHasSelect(e.base)) || e.whens.some((c) => exprHasSelect(c.when) || exprHasSelect(c.then)) || (e.otherwise !== undefined && exprHasSelect(e.otherwise));
    case 'aggregate':
      return e.arg !== undefined && exprHasSelect(e.arg);
    case 'rowNumber':
      return e.orderBy.some((o) => exprHasSelect(o.expr));
    case 'exists':
    case 'subquery':
      return true;
    default:
      return assertNever(e, 'SQL expression');
  }
}

/** true when a SELECT has another SELECT inside (a derived table, a subquery, EXISTS). */
function hasNestedSelect(s: SelectNode): boolean {
  return (
    (s.from !== undefined && s.from.kind !== 'table') ||
    s.joins.some((j) => j.from.kind === 'derived' || (j.type !== 'CROSS' && exprHasSelect(j.on))) ||
    s.columns.some((c) => exprHasSelect(c.expr)) ||
    (s.where !== undefined && exprHasSelect(s.where)) ||
    s.orderBy.some((o) => exprHasSelect(o.expr))
  );
}

/**
 * A GROUP BY term: an expression the SELECT list also returns is named by its position there, unless
 * it is a plain column. Written out again, its parameters would get other numbers, and PostgreSQL
 * would then not see the grouped expression in the SELECT list ("subquery uses ungrouped column" for
 * a computed property, whose subqueries read the row). Both engines take `GROUP BY 1`.
 */
function writeGroupTerm(w: SqlWriter, columns: readonly SelectColumn[], g: SqlExpr): void {
  const position = g.kind === 'column' ? -1 : columns.findIndex((c) => c.expr === g);
  if (position < 0) writeExpr(w, g);
  else w.write(String(position + 1));
}

/** `expr AS "alias", ...` */
function writeColumns(w: SqlWriter, columns: readonly SelectColumn[]): void {
  w.list(columns, (c) => {
    writeExpr(w, c.expr);
    if (c.alias !== undefined) {
      w.write(' AS ');
      w.ident(c.alias);
    }
  });
}

/** ` RETURNING columns` of a write, when it has them. */
function writeReturning(w: SqlWriter, returning: Returning | undefined): void {
  if (returning === undefined) return;
  w.write(' RETURNING ');
  writeColumns(w, returning);
}

function writeSelect(w: SqlWriter, s: SelectNode, top = false): void {
  w.write('SELECT ');
  if (s.columns.length === 0) w.write('*');
  writeColumns(w, s.columns);
  if (s.from !== undefined) {
    w.write(' FROM ');
    writeFrom(w, s.from);
  }
  for (const j of s.joins) {
    switch (j.type) {
      case 'CROSS':
        w.write(' CROSS JOIN ');
        writeFrom(w, j.from);
        break;
      case 'LEFT':
      case 'INNER':
        w.write(j.type === 'LEFT' ? ' LEFT JOIN ' : ' JOIN ');
        writeFrom(w, j.from);
        w.write(' ON ');
        writeExpr(w, j.on);
        break;
      default:
        assertNever(j, 'join');
    }
  }
  // The liveness check goes first: SQLite tests WHERE terms in order, so it runs for every row examined.
  // A GROUP BY reads its whole input before it yields a row: it is checked too (aggregated reads, $apply).
  const live = w.liveness !== undefined && (top || hasNestedSelect(s) || (s.groupBy?.length ?? 0) > 0) ? w.liveness : undefined;
  const where = live === undefined ? s.where : s.where === undefined ? live : { kind: 'binary' as const, operator: 'AND' as const, left: live, right: s.where };
  if (where !== undefined) {
    w.write(' WHERE ');
    writeExpr(w, where);
  }
  if (s.groupBy !== undefined && s.groupBy.length > 0) {
    w.write(' GROUP BY ');
    w.list(s.groupBy, (g) => writeGroupTerm(w, s.columns, g));
  }
  if (s.orderBy.length > 0) {
    w.write(' ORDER BY ');
    w.list(s.orderBy, (o) => writeOrderItem(w, o));
  }
  if (s.limit !== undefined) {
    w.write(' LIMIT ');
    writeExpr(w, w.dialect.rowLimit(s.limit));
  }
  if (s.offset !== undefined) {
    if (s.limit === undefined && w.dialect.noLimit !== undefined) w.write(` LIMIT ${w.dialect.noLimit}`);
    w.write(' OFFSET ');
    writeExpr(w, w.dialect.rowLimit(s.offset));
  }
  if (s.lockForUpdate === true && w.dialect.rowLocks) w.write(' FOR UPDATE');
}

/** `expr ASC|DESC`, with the NULL placement the dialect needs for NULLs to sort first ascending (unless never NULL). */
function writeOrderItem(w: SqlWriter, o: OrderItem): void {
  writeExpr(w, o.expr);
  w.write(` ${o.direction}`);
  if (o.notNull !== true) w.write(w.dialect.nullsOrder(o.direction));
}

function writeFrom(w: SqlWriter, f: FromItem): void {
  switch (f.kind) {
    case 'table':
      w.ident(f.table);
      w.write(' AS ');
      w.ident(f.alias);
      return;
    case 'derived':
      w.write(f.lateral === true ? 'LATERAL (' : '(');
      writeSelect(w, f.query);
      w.write(') AS ');
      w.ident(f.alias);
      return;
    case 'union':
      w.write('(');
      f.queries.forEach((q, i) => {
        if (q.orderBy.length > 0 || q.limit !== undefined) throw new Error('a UNION ALL member cannot be ordered or limited');
        if (i > 0) w.write(' UNION ALL ');
        writeSelect(w, q);
      });
      w.write(') AS ');
      w.ident(f.alias);
      return;
    default:
      return assertNever(f, 'from item');
  }
}

function writeExpr(w: SqlWriter, e: SqlExpr): void {
  switch (e.kind) {
    case 'column':
      w.ident(e.table);
      w.write('.');
      w.ident(e.column);
      return;
    case 'param':
      return w.param(e.value);
    case 'constant':
      if (e.value !== null && !Number.isFinite(e.value)) throw new Error('non-finite SQL constant');
      return w.write(e.value === null ? 'NULL' : String(e.value));
    case 'name':
      if (!NAME_LITERAL.test(e.value)) throw new Error(`not a name for an SQL literal: ${JSON.stringify(e.value)}`);
      return w.write(`'${e.value}'`);
    case 'binary':
      w.write('(');
      writeExpr(w, e.left);
      w.write(` ${e.operator} `);
      writeExpr(w, e.right);
      w.write(')');
      return;
    case 'not':
      w.write('(NOT ');
      writeExpr(w, e.operand);
      w.write(')');
      return;
    case 'negate':
      w.write('(- ');
      writeExpr(w, e.operand);
      w.write(')');
      return;
    case 'isNull':
      w.write('(');
      writeExpr(w, e.operand);
      w.write(e.negated ? ' IS NOT NULL)' : ' IS NULL)');
      return;
    case 'isTrue':
      w.write('(');
      writeExpr(w, e.operand);
      w.write(e.negated ? ' IS NOT TRUE)' : ' IS TRUE)');
      return;
    case 'like':
      w.write('(');
      writeExpr(w, e.operand);
      w.write(' LIKE ');
      writeExpr(w, e.pattern);
      w.write(e.escape === w.dialect.likeEscape && w.dialect.likeEscapeIsDefault ? ')' : ` ESCAPE '${e.escape.replace(/'/g, "''")}')`);
      return;
    case 'inList':
      w.write('(');
      writeExpr(w, e.operand);
      w.write(e.negated ? ' NOT IN (' : ' IN (');
      w.list(e.items, (item) => writeExpr(w, item));
      w.write('))');
      return;
    case 'call':
      w.write(`${e.name}(`);
      w.list(e.args, (a) => writeExpr(w, a));
      w.write(')');
      return;
    case 'rowNumber':
      w.write(e.orderBy.length === 0 ? 'row_number() OVER (' : 'row_number() OVER (ORDER BY ');
      w.list(e.orderBy, (o) => writeOrderItem(w, o));
      w.write(')');
      return;
    case 'aggregate':
      w.write(`${e.fn}(`);
      if (e.arg === undefined) {
        if (e.distinct) throw new Error('a DISTINCT aggregate needs an argument');
        w.write('*');
      } else {
        if (e.distinct) w.write('DISTINCT ');
        writeExpr(w, e.arg);
      }
      w.write(')');
      return;
    case 'case':
      w.write('CASE');
      if (e.base !== undefined) {
        w.write(' ');
        writeExpr(w, e.base);
      }
      for (const c of e.whens) {
        w.write(' WHEN ');
        writeExpr(w, c.when);
        w.write(' THEN ');
        writeExpr(w, c.then);
      }
      if (e.otherwise !== undefined) {
        w.write(' ELSE ');
        writeExpr(w, e.otherwise);
      }
      w.write(' END');
      return;
    case 'exists':
      w.write(e.negated ? 'NOT EXISTS (' : 'EXISTS (');
      writeSelect(w, e.query);
      w.write(')');
      return;
    case 'subquery':
      w.write('(');
      writeSelect(w, e.query);
      w.write(')');
      return;
    case 'cast':
      w.write('CAST(');
      writeExpr(w, e.operand);
      w.write(` AS ${w.dialect.castType(e.type)})`);
      return;
    case 'star':
      if (e.table !== undefined) {
        w.ident(e.table);
        w.write('.');
      }
      w.write('*');
      return;
    default:
      return assertNever(e, 'SQL expression');
  }
}
