/**
 * SQL for properties computed on read (model `ComputedValue`): lookups through single-valued
 * navigations, existence of related rows (a maintained count, db/row-counters.ts), and the first
 * non-empty of several lookups.
 */
import { counterColumn, type ComputedValue, type EntityType } from '../edm/model.js';
import { col, constant, param } from '../sql/build.js';
import type { SqlExpr } from '../sql/nodes.js';
import { assertNever } from '../util/assert-never.js';
import type { AliasGenerator } from './alias-generator.js';
import { correlatedTarget } from './plan-navigation.js';

/** The SQL expression of a computed property, evaluated for the row `alias` of `type`. */
export function computedExpr(type: EntityType, alias: string, computed: ComputedValue, aliases: AliasGenerator): SqlExpr {
  switch (computed.kind) {
    case 'lookup':
      return lookupExpr(type, alias, computed.path, aliases);
    case 'exists':
      // The count that db/row-counters.ts keeps; never NULL, so the test is 0 or 1 like EXISTS.
      return { kind: 'binary', operator: '>', left: col(alias, counterColumn(computed.navigation)), right: constant(0) };
    case 'firstNonEmpty': {
      const args: SqlExpr[] = computed.paths.map((p) => ({
        kind: 'call',
        name: 'nullif',
        args: [lookupExpr(type, alias, p, aliases), param('')],
      }));
      args.push(computed.fallback === null ? constant(null) : param(computed.fallback));
      return { kind: 'call', name: 'coalesce', args };
    }
    default:
      return assertNever(computed, 'computed value');
  }
}

/** The value at the end of a path of single-valued navigations, as a scalar subquery (NULL when a hop is missing). */
function lookupExpr(type: EntityType, alias: string, path: readonly string[], aliases: AliasGenerator): SqlExpr {
  const [head, ...rest] = path;
  if (head === undefined) throw new Error('empty lookup path');
  if (rest.length === 0) return col(alias, head);
  const nav = type.navigationByName.get(head);
  if (nav === undefined || nav.collection) throw new Error(`lookup through ${head} is not a single-valued navigation`);
  const query = correlatedTarget(nav, alias, aliases, (t) => [{ expr: lookupExpr(nav.target, t, rest, aliases) }]);
  return { kind: 'subquery', query: { ...query, limit: constant(1) } };
}
