/**
 * An expression with the calls of some functions taken out, and the condition under which it still
 * has the original's value. For SQLite's triggers (db/sqlite/sqlite-entity-json.ts): a trigger runs in
 * every connection that writes, a sqlite3 shell's too, where the service's JavaScript functions are not
 * registered and a statement naming one fails to prepare; the entity JSON calls them only in CASE
 * branches for rare values (a stale stored ETag, a decimal SQL cannot spell as JavaScript does), so a
 * trigger keeps the JSON where those branches are not taken and NULL elsewhere (reads then build it).
 */
import { bin } from './build.js';
import type { OrderItem, SelectNode, SqlExpr, FromItem, JoinNode } from './nodes.js';
import { assertNever } from '../util/assert-never.js';

/** A condition, folded where it is known at planning: `true`, `false`, or SQL (NULL counts as false). */
export type Exactness = SqlExpr | boolean;

/** The expression without the calls, and when it equals the original. */
export interface WithoutCalls {
  readonly expr: SqlExpr;
  readonly exact: Exactness;
}

/** AND of conditions, folded. */
export function allOf(...conditions: readonly Exactness[]): Exactness {
  let result: Exactness = true;
  for (const c of conditions) {
    if (c === false) return false;
    if (c === true) continue;
    result = result === true ? c : bin('AND', result, c);
  }
  return result;
}

/** OR of conditions, folded. */
export function anyOf(...conditions: readonly Exactness[]): Exactness {
  let result: Exactness = false;
  for (const c of conditions) {
    if (c === true) return true;
    if (c === false) continue;
    result = result === false ? c : bin('OR', result, c);
  }
  return result;
}

const NULL: SqlExpr = { kind: 'constant', value: null };

/**
 * `e` with every call of a function `removed` names replaced by NULL, and the condition under which
 * that changes nothing. A CASE whose ELSE held such a call is exact when one of its WHENs holds; any
 * other place such a call sits (a WHEN, a THEN, an argument, a subquery) makes the whole inexact.
 */
export function withoutCalls(e: SqlExpr, removed: (name: string) => boolean): WithoutCalls {
  const sub = (x: SqlExpr): WithoutCalls => withoutCalls(x, removed);
  const same: WithoutCalls = { expr: e, exact: true };
  switch (e.kind) {
    case 'column':
    case 'param':
    case 'constant':
    case 'name':
    case 'star':
      return same;
    case 'call': {
      if (removed(e.name)) return { expr: NULL, exact: false };
      const args = e.args.map(sub);
      return { expr: { ...e, args: args.map((a) => a.expr) }, exact: allOf(...args.map((a) => a.exact)) };
    }
    case 'binary': {
      const [l, r] = [sub(e.left), sub(e.right)];
      return { expr: { ...e, left: l.expr, right: r.expr }, exact: allOf(l.exact, r.exact) };
    }
    case 'not':
    case 'negate':
    case 'isNull':
    case 'isTrue':
    case 'cast': {
      const o = sub(e.operand);
      return { expr: { ...e, operand: o.expr }, exact: o.exact };
    }
    case 'like': {
      const [o, p] = [sub(e.operand), sub(e.pattern)];
      return { expr: { ...e, operand: o.expr, pattern: p.expr }, exact: allOf(o.exact, p.exact) };
    }
    case 'inList': {
      const o = sub(e.operand);
      const items = e.items.map(sub);
      return { expr: { ...e, operand: o.expr, items: items.map((i) => i.expr) }, exact: allOf(o.exact, ...items.map((i) => i.exact)) };
    }
    case 'aggregate': {
      if (e.arg === undefined) return same;
      const a = sub(e.arg);
      return { expr: { ...e, arg: a.expr }, exact: a.exact };
    }
    case 'rowNumber':
      return orderUses(e.orderBy, removed) ? { expr: NULL, exact: false } : same;
    case 'exists':
    case 'subquery':
      return selectUses(e.query, removed) ? { expr: NULL, exact: false } : same;
    case 'case': {
      const base = e.base === undefined ? undefined : sub(e.base);
      const whens = e.whens.map((w) => ({ when: sub(w.when), then: sub(w.then) }));
      const otherwise = e.otherwise === undefined ? undefined : sub(e.otherwise);
      const matches = whens.map((w) => (base === undefined ? w.when.expr : bin('=', base.expr, w.when.expr)));
      const exact = allOf(
        base?.exact ?? true,
        ...whens.flatMap((w) => [w.when.exact, w.then.exact]),
        otherwise === undefined || otherwise.exact === true ? true : anyOf(...matches, otherwise.exact),
      );
      const expr: SqlExpr = {
        kind: 'case',
        ...(base === undefined ? {} : { base: base.expr }),
        whens: whens.map((w) => ({ when: w.when.expr, then: w.then.expr })),
        ...(otherwise === undefined ? {} : { otherwise: otherwise.expr }),
      };
      return { expr, exact };
    }
    default:
      return assertNever(e, 'SQL expression');
  }
}

/**
 * true when `e` calls a function `removed` names, anywhere (subqueries included): exactly when taking
 * the calls out could change its value.
 */
export function exprUses(e: SqlExpr, removed: (name: string) => boolean): boolean {
  return withoutCalls(e, removed).exact !== true;
}

function orderUses(items: readonly OrderItem[], removed: (name: string) => boolean): boolean {
  return items.some((o) => exprUses(o.expr, removed));
}

function fromUses(f: FromItem, removed: (name: string) => boolean): boolean {
  switch (f.kind) {
    case 'table':
      return false;
    case 'derived':
      return selectUses(f.query, removed);
    case 'union':
      return f.queries.some((q) => selectUses(q, removed));
    default:
      return assertNever(f, 'FROM item');
  }
}

/** true when a join calls a function `removed` names anywhere. */
export function joinUses(j: JoinNode, removed: (name: string) => boolean): boolean {
  return fromUses(j.from, removed) || (j.type !== 'CROSS' && exprUses(j.on, removed));
}

/** true when a SELECT calls a function `removed` names anywhere. */
export function selectUses(s: SelectNode, removed: (name: string) => boolean): boolean {
  const uses = (x: SqlExpr | undefined): boolean => x !== undefined && exprUses(x, removed);
  return (
    s.columns.some((c) => uses(c.expr)) ||
    (s.from !== undefined && fromUses(s.from, removed)) ||
    s.joins.some((j) => joinUses(j, removed)) ||
    uses(s.where) ||
    (s.groupBy ?? []).some(uses) ||
    orderUses(s.orderBy, removed) ||
    uses(s.limit) ||
    uses(s.offset)
  );
}
