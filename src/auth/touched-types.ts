/**
 * The entity types a query reads besides its target: every type reached by `$expand` (recursively) and
 * by navigation paths, `$count` paths and lambdas in `$filter`/`$orderby` and in the transformations
 * of `$apply` (groupby paths, aggregated expressions, filters). Authorization checks read permission
 * on each, so no option can read rows the caller may not read directly.
 */
import type { EntityType } from '../edm/model.js';
import type { ApplyTransformation, Expr, ExpandItem, MemberSegment, NestedQueryOptions } from '../uri/ast.js';
import { assertNever } from '../util/assert-never.js';

type Scope = ReadonlyMap<string, EntityType>;

function walkSegments(start: EntityType, segments: readonly MemberSegment[], out: Set<EntityType>): EntityType | undefined {
  let type: EntityType | undefined = start;
  for (const seg of segments) {
    if (type === undefined || seg.kind !== 'name') return type;
    const nav = type.navigationByName.get(seg.name);
    if (nav === undefined) return type;
    out.add(nav.target);
    type = nav.target;
  }
  return type;
}

function walkExpr(e: Expr, it: EntityType, vars: Scope, out: Set<EntityType>): void {
  switch (e.kind) {
    case 'literal':
    case 'alias':
    case 'json':
      return;
    case 'member': {
      const root = e.root.kind === 'variable' ? vars.get(e.root.name) : it;
      if (root !== undefined) walkSegments(root, e.segments, out);
      for (const s of e.segments) if (s.kind === 'count' && s.filter !== undefined) walkExpr(s.filter, it, vars, out);
      return;
    }
    case 'binary':
      walkExpr(e.left, it, vars, out);
      walkExpr(e.right, it, vars, out);
      return;
    case 'not':
    case 'negate':
      walkExpr(e.operand, it, vars, out);
      return;
    case 'call':
      for (const a of e.args) walkExpr(a, it, vars, out);
      return;
    case 'list':
      for (const a of e.items) walkExpr(a, it, vars, out);
      return;
    case 'lambda': {
      const root = e.collection.root.kind === 'variable' ? vars.get(e.collection.root.name) : it;
      const target = root === undefined ? undefined : walkSegments(root, e.collection.segments, out);
      if (e.predicate !== undefined && target !== undefined) {
        const inner = new Map(vars);
        if (e.variable !== undefined) inner.set(e.variable, target);
        walkExpr(e.predicate, it, inner, out);
      }
      return;
    }
    default:
      return assertNever(e, 'expression');
  }
}

function walkExpand(type: EntityType, items: readonly ExpandItem[], out: Set<EntityType>): void {
  for (const item of items) {
    const targets = item.star
      ? type.navigations.filter((n) => n.exposed).map((n) => n.target)
      : [walkSegments(type, item.path, out)].filter((t): t is EntityType => t !== undefined && t !== type);
    for (const t of targets) {
      out.add(t);
      walkOptions(t, item.options, out);
    }
  }
}

/**
 * The types `$apply` reads, up to and including its first aggregating transformation: later paths,
 * `$filter` and `$orderby` name properties of aggregated instances, whose navigations were walked in
 * the grouping paths already. Returns true when a transformation aggregates.
 */
function walkApply(type: EntityType, trafos: readonly ApplyTransformation[], out: Set<EntityType>): boolean {
  const none: Scope = new Map();
  for (const t of trafos) {
    switch (t.kind) {
      case 'filter':
        walkExpr(t.predicate, type, none, out);
        break;
      case 'groupby':
        for (const g of t.groupBy) if (g.kind === 'path') walkSegments(type, g.path.segments, out);
        walkApply(type, t.then ?? [], out);
        return true;
      case 'aggregate':
        for (const item of t.items) {
          if (item.kind === 'method') walkExpr(item.expr, type, none, out);
          else walkSegments(type, item.kind === 'count' ? item.path : item.path.segments, out);
          for (const from of item.from) for (const p of from.groupBy) walkSegments(type, p.segments, out);
        }
        return true;
      case 'orderby':
        // Before an aggregation it orders entities: its paths read like $orderby's.
        for (const ob of t.items) walkExpr(ob.expr, type, none, out);
        break;
      case 'top':
      case 'skip':
      case 'identity':
        break;
      case 'concat':
        for (const branch of t.branches) walkApply(type, branch, out);
        return true;
      case 'unsupported':
        return true;
      default:
        return assertNever(t, 'transformation');
    }
  }
  return false;
}

function walkOptions(type: EntityType, o: NestedQueryOptions, out: Set<EntityType>): void {
  const none: Scope = new Map();
  if (o.apply !== undefined && walkApply(type, o.apply, out)) return;
  if (o.filter !== undefined) walkExpr(o.filter, type, none, out);
  for (const ob of o.orderby ?? []) walkExpr(ob.expr, type, none, out);
  if (o.expand !== undefined) walkExpand(type, o.expand, out);
}

/** Types read by the query options of a request on `type` (not including `type` itself unless reached again). */
export function touchedTypes(type: EntityType, options: NestedQueryOptions): Set<EntityType> {
  const out = new Set<EntityType>();
  walkOptions(type, options, out);
  return out;
}
