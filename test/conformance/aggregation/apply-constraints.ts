/**
 * The corpus `Constraints` as a stand-in model for `$apply`, applied as our binder applies the real
 * model: a custom aggregate (a path aggregated without `with`) must end in a name the corpus lists as
 * `customAggregate`; a grouping path may only pass through single-valued segments (not a collection
 * navigation or collection property, not a primitive property).
 */
import type { ApplyTransformation, MemberExpr, QueryOptions } from '../../../src/uri/ast.js';

/** Name lists of the corpus, by rule name. */
export type Constraints = Readonly<Record<string, readonly string[]>>;

/** A rejection that comes from the corpus model constraints, not from the parser. */
export class ConstraintViolation extends Error {}

interface Names {
  readonly customAggregates: ReadonlySet<string>;
  /** Names that cannot be followed by another segment of a grouping path. */
  readonly notSingleValued: ReadonlySet<string>;
}

function groupingPath(path: MemberExpr, names: Names): void {
  path.segments.slice(0, -1).forEach((s) => {
    if (s.kind === 'name' && names.notSingleValued.has(s.name)) throw new ConstraintViolation(`a grouping path cannot continue after '${s.name}'`);
  });
}

function walk(trafos: readonly ApplyTransformation[], names: Names): void {
  for (const t of trafos) {
    switch (t.kind) {
      case 'aggregate':
        for (const item of t.items) {
          if (item.kind !== 'custom') continue;
          const last = item.path.segments[item.path.segments.length - 1];
          const name = last?.kind === 'name' ? last.name : '';
          if (!names.customAggregates.has(name)) throw new ConstraintViolation(`'${name}' is aggregated without 'with' but is not a custom aggregate`);
        }
        break;
      case 'groupby':
        for (const g of t.groupBy) if (g.kind === 'path') groupingPath(g.path, names);
        walk(t.then ?? [], names);
        break;
      case 'filter':
      case 'unsupported':
        break;
    }
  }
}

/** Throws ConstraintViolation when `$apply` uses a name in a role the constraints forbid. */
export function checkApplyConstraints(query: QueryOptions, constraints: Constraints): void {
  if (query.apply === undefined) return;
  const list = (...rules: string[]): Set<string> => new Set(rules.flatMap((r) => constraints[r] ?? []));
  walk(query.apply, {
    customAggregates: list('customAggregate'),
    notSingleValued: list('entityColNavigationProperty', 'complexColProperty', 'primitiveColProperty', 'primitiveKeyProperty', 'primitiveNonKeyProperty', 'streamProperty'),
  });
}
