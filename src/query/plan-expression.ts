/**
 * Bound expression → SQL expression (URL Conventions §5.1.1 semantics on SQL):
 * - eq/ne are null-safe (`null eq null` is true) and never NULL;
 * - gt/ge/lt/le are false when an operand is null: plain SQL comparisons where NULL acts as false,
 *   made two-valued under `not` so `not (x gt 5)` includes rows where x is null;
 * - and/or/not keep SQL's three-valued logic, which is OData's for null function results;
 * - `all(p)` is `NOT EXISTS (… WHERE p IS NOT TRUE)`, so a member for which p is null fails it;
 * - contains/startswith/endswith with a literal become LIKE with `%`, `_` and `\` escaped;
 * - enums compare by member value for gt/ge/lt/le, by encoded name for eq/ne.
 */
import type { EnumType } from '../edm/model.js';
import { and, col, constant, param, select } from '../sql/build.js';
import type { Dialect } from '../sql/dialect.js';
import type { SqlExpr } from '../sql/nodes.js';
import { assertNever } from '../util/assert-never.js';
import type { BoundExpr, CompareOperator } from './bound-ast.js';
import { computedExpr } from './plan-computed.js';
import { navigationCondition } from './plan-navigation.js';
import type { QueryScope } from './query-scope.js';

/** Planning options that must not come from globals (the planner is pure). */
export interface ExprPlanContext {
  readonly dialect: Dialect;
  /** The request time, for now(). */
  readonly now: string;
}

const SQL_COMPARE: Record<Exclude<CompareOperator, 'eq' | 'ne'>, '>' | '>=' | '<' | '<='> = { gt: '>', ge: '>=', lt: '<', le: '<=' };

/** true for the integer types, whose `mod` is integer division's remainder. */
function isIntegral(t: BoundExpr['type']): boolean {
  return t.kind === 'primitive' && (t.name === 'Edm.Int32' || t.name === 'Edm.Int64');
}

/** How a numeric literal is typed when it stands beside a value of another numeric type (Dialect.typedValue). */
const LITERAL_TYPES: Partial<Record<string, 'INTEGER' | 'REAL' | 'NUMERIC'>> = { 'Edm.Int64': 'INTEGER', 'Edm.Decimal': 'NUMERIC', 'Edm.Double': 'REAL', 'Edm.Single': 'REAL' };
const NUMERIC_TYPES = new Set(['Edm.Byte', 'Edm.SByte', 'Edm.Int16', 'Edm.Int32', 'Edm.Int64', 'Edm.Decimal', 'Edm.Double', 'Edm.Single']);

/**
 * `planned` (the plan of `e`), typed as its own type when `e` is a numeric literal beside a value of
 * another numeric type: `sourceSequence eq 3000000000` compares an Int32 with an Int64, which an engine
 * that types a parameter by its neighbour (PostgreSQL) would read as an Int32 and fail.
 */
function literalTyped(d: Dialect, e: BoundExpr, planned: SqlExpr, other: BoundExpr): SqlExpr {
  if (e.kind !== 'literal' || e.value === null || e.type.kind !== 'primitive' || other.type.kind !== 'primitive' || e.type.name === other.type.name) return planned;
  const type = LITERAL_TYPES[e.type.name];
  if (type === undefined || !NUMERIC_TYPES.has(other.type.name)) return planned;
  // A whole number written as a decimal (5.0) beside an integer is that integer: an index on the integer still serves it.
  if (isIntegral(other.type) && type !== 'INTEGER' && typeof e.value === 'number' && Number.isSafeInteger(e.value)) return d.typedValue(param(BigInt(e.value)), 'INTEGER');
  return d.typedValue(planned, type);
}

/** How a numeric literal operand of arithmetic is typed: decimals as the doubles they are stored as. */
const OPERAND_TYPES: Partial<Record<string, 'INTEGER' | 'REAL'>> = {
  'Edm.Byte': 'INTEGER',
  'Edm.SByte': 'INTEGER',
  'Edm.Int16': 'INTEGER',
  'Edm.Int32': 'INTEGER',
  'Edm.Int64': 'INTEGER',
  'Edm.Decimal': 'REAL',
  'Edm.Double': 'REAL',
  'Edm.Single': 'REAL',
};

/**
 * `planned`, typed as its own type when `e` is a numeric literal operand of arithmetic whose result is
 * not an integer: whatever stands beside it (`sourceSequence div 2.0` is 3.5, not integer division;
 * `0.1 add 0.2` has no other operand to take a type from; PostgreSQL would read `quantityPer div 0.1`'s
 * divisor as the integer of its NULLIF(…, 0)). Decimals are doubles, as the values they meet are stored.
 */
function operandTyped(d: Dialect, e: BoundExpr, planned: SqlExpr): SqlExpr {
  if (e.kind !== 'literal' || e.value === null || e.type.kind !== 'primitive') return planned;
  const type = OPERAND_TYPES[e.type.name];
  return type === undefined ? planned : d.typedValue(planned, type);
}

/** Escapes `%`, `_` and the escape character for a LIKE pattern. */
export function escapeLike(text: string, escape: string): string {
  let out = '';
  for (const ch of text) out += ch === '%' || ch === '_' || ch === escape ? escape + ch : ch;
  return out;
}

/** An enum column mapped to its member values (OData orders and compares enums by value). */
export function enumValue(e: SqlExpr, enumType: EnumType): SqlExpr {
  return {
    kind: 'case',
    whens: enumType.members.map((m) => ({ when: { kind: 'binary', operator: '=', left: e, right: param(m.encoded) }, then: constant(m.value) })),
  };
}

/** The operands of a chain of one logical operator (`a or b or c` → [a, b, c]), left to right, without recursion. */
function chainTerms(e: Extract<BoundExpr, { kind: 'logical' }>): BoundExpr[] {
  const terms: BoundExpr[] = [];
  const stack: BoundExpr[] = [e];
  while (stack.length > 0) {
    const x = stack.pop() as BoundExpr;
    if (x.kind === 'logical' && x.operator === e.operator) stack.push(x.right, x.left);
    else terms.push(x);
  }
  return terms;
}

/**
 * The terms joined by AND or OR as a balanced tree (both are associative, in three-valued logic too):
 * SQLite refuses expressions nested 1,000 deep, which a left-deep chain of 1,000 terms is.
 */
function balancedChain(terms: readonly SqlExpr[], operator: 'AND' | 'OR'): SqlExpr {
  if (terms.length === 1) return terms[0] as SqlExpr;
  const mid = Math.ceil(terms.length / 2);
  return { kind: 'binary', operator, left: balancedChain(terms.slice(0, mid), operator), right: balancedChain(terms.slice(mid), operator) };
}

/** A non-null parameter, typed (Dialect.typedValue) or not. */
const isValue = (x: SqlExpr): boolean => (x.kind === 'param' && x.value !== null) || (x.kind === 'cast' && isValue(x.operand));

/** `eq` (or `ne`) in OData's null semantics: `=` where the dialect prefers it and one side is a value (EngineCapabilities.plainEqualsForValues). */
export function equals(d: Dialect, left: SqlExpr, right: SqlExpr, ne: boolean, negated: boolean): SqlExpr {
  if (ne || !d.capabilities.plainEqualsForValues || !(isValue(left) || isValue(right))) return d.nullSafeEquals(left, right, ne);
  const cmp: SqlExpr = { kind: 'binary', operator: '=', left, right };
  return negated ? d.isTrue(cmp) : cmp;
}

/** Plans an expression in a scope; `negated` is true under a `not`. */
export function planExpression(e: BoundExpr, scope: QueryScope, ctx: ExprPlanContext, negated = false): SqlExpr {
  const d = ctx.dialect;
  const plan = (x: BoundExpr, n = negated): SqlExpr => planExpression(x, scope, ctx, n);
  switch (e.kind) {
    case 'literal':
      // better-sqlite3 binds JS numbers as REAL; integer literals must stay integers (`5 div 3` is 1).
      if (typeof e.value === 'number' && e.type.kind === 'primitive' && (e.type.name === 'Edm.Int32' || e.type.name === 'Edm.Int64')) {
        return param(BigInt(e.value));
      }
      return param(e.value);
    case 'property': {
      const rowScope = scope.resolve(e.root.variable);
      const alias = rowScope.aliasThrough(e.navigations);
      const s = e.property.storage;
      const owner = e.navigations.length === 0 ? rowScope.type : (e.navigations[e.navigations.length - 1]?.target ?? rowScope.type);
      const value = s.kind === 'computed' ? computedExpr(owner, alias, s.computed, scope.aliases) : col(alias, e.property.name);
      // A stored Boolean is a 0/1 value; a computed `exists` is a condition already.
      const stored01 = e.type.kind === 'primitive' && e.type.name === 'Edm.Boolean' && !(s.kind === 'computed' && s.computed.kind === 'exists');
      return stored01 ? d.booleanTest(value) : value;
    }
    case 'result':
      return col(scope.alias, e.column);
    case 'compare': {
      const typedLeft = literalTyped(d, e.left, plan(e.left), e.right);
      const typedRight = literalTyped(d, e.right, plan(e.right), e.left);
      if (e.operator === 'eq' || e.operator === 'ne') return equals(d, typedLeft, typedRight, e.operator === 'ne', negated);
      let left = typedLeft;
      let right = typedRight;
      if (e.left.type.kind === 'enum') left = enumValue(left, e.left.type.enumType);
      if (e.right.type.kind === 'enum') right = enumValue(right, e.right.type.enumType);
      const cmp: SqlExpr = { kind: 'binary', operator: SQL_COMPARE[e.operator], left, right };
      return negated ? d.isTrue(cmp) : cmp;
    }
    case 'logical':
      return balancedChain(chainTerms(e).map((t) => plan(t)), e.operator === 'and' ? 'AND' : 'OR');
    case 'not':
      return { kind: 'not', operand: plan(e.operand, true) };
    case 'arithmetic': {
      const operand = (x: BoundExpr): SqlExpr => {
        if (!isIntegral(e.type)) return operandTyped(d, x, plan(x));
        // Integers in 64 bits on every engine (SQLite's own width), so Int32 operands do not overflow at
        // 2^31; an operand that is integer arithmetic itself is 64-bit already.
        const wideAlready = (x.kind === 'arithmetic' || x.kind === 'negate') && isIntegral(x.type);
        return wideAlready ? plan(x) : d.wideInteger(plan(x));
      };
      const left = operand(e.left);
      const right = operand(e.right);
      const op = e.operator;
      switch (op) {
        case 'add':
          return { kind: 'binary', operator: '+', left, right };
        case 'sub':
          return { kind: 'binary', operator: '-', left, right };
        case 'mul':
          return { kind: 'binary', operator: '*', left, right };
        case 'div':
          return d.divide(left, right);
        case 'divby':
          return d.exactDivide(left, right);
        case 'mod':
          // Decimal and Double take the true remainder (§5.1.1.2.5), integers integer division's.
          return isIntegral(e.type) ? d.integerRemainder(left, right) : d.remainder(left, right);
        default:
          return assertNever(op, 'arithmetic operator');
      }
    }
    case 'negate':
      return { kind: 'negate', operand: isIntegral(e.type) ? d.wideInteger(plan(e.operand)) : plan(e.operand) };
    case 'in': {
      const operand = plan(e.operand);
      const hasNull = e.items.some((i) => i.kind === 'literal' && i.value === null);
      const items = e.items.filter((i) => !(i.kind === 'literal' && i.value === null)).map((i) => literalTyped(d, i, plan(i), e.operand));
      let cond: SqlExpr | undefined = items.length === 0 ? undefined : { kind: 'inList', operand, items, negated: false };
      if (hasNull) {
        const isNull: SqlExpr = { kind: 'isNull', operand, negated: false };
        cond = cond === undefined ? isNull : { kind: 'binary', operator: 'OR', left: isNull, right: cond };
      }
      if (cond === undefined) return { kind: 'binary', operator: '=', left: constant(1), right: constant(0) };
      return negated ? d.isTrue(cond) : cond;
    }
    case 'has':
      return equals(d, plan(e.operand), param(e.member), false, negated);
    case 'call':
      return planCall(e, scope, ctx, negated);
    case 'lambda': {
      const from = scope.resolve(e.root.variable);
      const parentAlias = from.aliasThrough(e.navigations);
      const inner = scope.nested(e.variable.variable, e.collection.target);
      const predicate = e.predicate === undefined ? undefined : planExpression(e.predicate, inner, ctx, false);
      const where = and(
        navigationCondition(e.collection, parentAlias, inner.alias),
        e.operator === 'all' && predicate !== undefined ? d.isNotTrue(predicate) : predicate,
      );
      const query = select({ columns: [{ expr: constant(1) }], from: { kind: 'table', table: e.collection.target.table, alias: inner.alias }, joins: inner.joins, where });
      return { kind: 'exists', query, negated: e.operator === 'all' };
    }
    case 'count': {
      const from = scope.resolve(e.root.variable);
      const parentAlias = from.aliasThrough(e.navigations);
      const inner = scope.nested('$this', e.collection.target);
      const filter = e.filter === undefined ? undefined : planExpression(e.filter, inner, ctx, false);
      const query = select({
        columns: [{ expr: { kind: 'call', name: 'count', args: [{ kind: 'star' }] } }],
        from: { kind: 'table', table: e.collection.target.table, alias: inner.alias },
        joins: inner.joins,
        where: and(navigationCondition(e.collection, parentAlias, inner.alias), filter),
      });
      return { kind: 'subquery', query };
    }
    default:
      return assertNever(e, 'bound expression');
  }
}

function planCall(e: Extract<BoundExpr, { kind: 'call' }>, scope: QueryScope, ctx: ExprPlanContext, negated: boolean): SqlExpr {
  const d = ctx.dialect;
  const args = e.args.map((a) => planExpression(a, scope, ctx, negated));
  switch (e.fn) {
    case 'contains':
    case 'startswith':
    case 'endswith': {
      const [subject, pattern] = args as [SqlExpr, SqlExpr];
      const lit = e.args[1];
      if (lit?.kind === 'literal' && typeof lit.value === 'string') {
        const esc = escapeLike(lit.value, d.likeEscape);
        const text = e.fn === 'contains' ? `%${esc}%` : e.fn === 'startswith' ? `${esc}%` : `%${esc}`;
        const like: SqlExpr = { kind: 'like', operand: subject, pattern: param(text), escape: d.likeEscape };
        // A stored property only: its column compares in code-point order (an expression's result, or an
        // $apply result column, in the database's collation).
        const stored = e.args[0]?.kind === 'property' && subject.kind === 'column';
        const range = e.fn === 'startswith' && d.capabilities.prefixRange && stored ? prefixRange(lit.value) : undefined;
        if (range === undefined) return like;
        // The LIKE alone decides (the range holds wherever it holds), also for NULL and under a `not`.
        const from: SqlExpr = { kind: 'binary', operator: '>=', left: subject, right: param(range.from) };
        if (range.to === undefined) return and(from, like) as SqlExpr;
        return and(from, { kind: 'binary', operator: '<', left: subject, right: param(range.to) }, like) as SqlExpr;
      }
      if (e.fn === 'contains') return d.containsExpr(subject, pattern);
      const len = d.functions.length([pattern]);
      const piece: SqlExpr = e.fn === 'startswith' ? { kind: 'call', name: 'substr', args: [subject, constant(1), len] } : d.textEnd(subject, len);
      return { kind: 'binary', operator: '=', left: piece, right: pattern };
    }
    case 'now':
      return param(ctx.now);
    default:
      return d.functions[e.fn](args);
  }
}

/**
 * The code-point range of the strings that start with `prefix` (text compared in code-point order,
 * as the PostgreSQL tables' COLLATE "C" does): from the prefix itself to the prefix with its last code
 * point raised by one (past the surrogates), or open-ended when no code point follows it. Undefined
 * for the empty prefix (every string).
 */
export function prefixRange(prefix: string): { readonly from: string; readonly to?: string } | undefined {
  const points = [...prefix];
  while (points.length > 0) {
    const last = points.pop() as string;
    const cp = last.codePointAt(0) as number;
    if (cp < 0x10ffff) return { from: prefix, to: points.join('') + String.fromCodePoint(cp === 0xd7ff ? 0xe000 : cp + 1) };
  }
  return prefix === '' ? undefined : { from: prefix };
}
