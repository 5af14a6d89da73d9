/**
 * $expand (URL Conventions §5.1.3) without N+1: each expanded navigation is one correlated subquery
 * column that SQLite fills with a JSON array (collections) or object (single-valued) of the related
 * rows, nested options applied inside it (filter, orderby, top, skip, select, count, expand). The
 * whole tree comes back from the one statement that reads the page.
 */
import type { EntityType, NavigationProperty } from '../edm/model.js';
import { NotImplementedError, QueryLimitError, UriSemanticError } from '../errors/odata-error.js';
import { and, col, constant, param, select } from '../sql/build.js';
import type { SelectColumn, SelectNode, SqlExpr } from '../sql/nodes.js';
import type { Dialect } from '../sql/dialect.js';
import type { ExpandItem } from '../uri/ast.js';
import { entityColumns } from './plan-select.js';
import { navigationCondition } from './plan-navigation.js';
import { QueryScope } from './query-scope.js';
import type { QueryPlanInput } from './plan-query.js';
import { planQuery } from './plan-query.js';
import { expandCap, expandCapMessage } from './option-limits.js';
import type { CollectionWalk } from './read-cost.js';

/** One planned expansion. */
export interface ExpandPlan {
  readonly nav: NavigationProperty;
  /** Output column holding the JSON of the related rows. */
  readonly columnName: string;
  /** Output column holding `@odata.count` of the related rows, when `$count=true` was nested. */
  readonly countColumnName?: string;
  readonly select?: ReadonlySet<string>;
  /** `$select` list for context URLs. */
  readonly selectList?: readonly string[];
  readonly expand: readonly ExpandPlan[];
  /** The most entities this expansion can put under one parent entity, nested levels included (its caps). */
  readonly maxRows: number;
  /** The most entities of this navigation under one parent (1 for a single-valued one). */
  readonly cap: number;
  /** A lambda or $count over a collection inside this expansion (see PlannedQuery.correlated). */
  readonly correlated: boolean;
  /** The lambdas and `$count`s over collections of this level's $filter and $orderby (read-cost.ts). */
  readonly walks: readonly CollectionWalk[];
  /** The SQL columns for a parent row in `scope`. */
  column(scope: QueryScope): SelectColumn;
  countColumn?(scope: QueryScope): SelectColumn;
}

const COUNT_STAR: SqlExpr = { kind: 'call', name: 'count', args: [{ kind: 'star' }] };

/**
 * The JSON object of a row's entity columns plus nested expansion columns (for the JavaScript writer).
 * Plain columns make a cheap object: no level is offered (see the PostgreSQL dialect's jsonObject).
 */
function rowObject(dialect: Dialect, columns: readonly SelectColumn[], nestedJson: ReadonlySet<string>): SqlExpr {
  const members = columns.flatMap((c) => (c.alias === undefined ? [] : [{ key: c.alias, value: c.expr, json: nestedJson.has(c.alias) }]));
  return dialect.jsonObject(members);
}

function itemNavigation(type: EntityType, item: ExpandItem): NavigationProperty[] {
  if (item.star) return type.navigations.filter((n) => n.exposed);
  if (item.ref || item.count || item.value === true) throw new NotImplementedError('$expand with /$ref, /$count or $value is not supported.');
  const [seg, ...rest] = item.path;
  if (seg === undefined || rest.length > 0 || seg.kind !== 'name') throw new NotImplementedError('$expand supports navigation property names (one segment each); nest $expand for deeper levels.');
  const nav = type.navigationByName.get(seg.name);
  if (nav === undefined || !nav.exposed) {
    throw new UriSemanticError(`Could not find a navigation property named '${seg.name}' on type '${type.qualifiedName}'.`, '$expand');
  }
  return [nav];
}

/** Plans the items of a `$expand` on `input.type`. */
export function planExpand(input: QueryPlanInput, items: readonly ExpandItem[]): ExpandPlan[] {
  const depth = input.depth + 1;
  if (depth > input.model.service.maxExpandDepth) {
    throw new QueryLimitError(`$expand is nested ${depth} levels deep; the limit is ${input.model.service.maxExpandDepth}.`, '$expand');
  }
  const plans: ExpandPlan[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    if (item.options.levels !== undefined) throw new NotImplementedError('$levels is not supported.');
    for (const nav of itemNavigation(input.type, item)) {
      if (seen.has(nav.name)) throw new UriSemanticError(`'${nav.name}' is expanded twice.`, '$expand', 'BadRequest_InvalidRequestUrl');
      seen.add(nav.name);
      plans.push(planOne(input, nav, item.star ? {} : item.options, depth));
    }
  }
  return plans;
}

/** Entities the expansions of one entity can add, all levels (see ExpandPlan.maxRows). */
export function expandedRowsPerEntity(plans: readonly ExpandPlan[]): number {
  return plans.reduce((n, p) => n + p.maxRows, 0);
}

function planOne(input: QueryPlanInput, nav: NavigationProperty, options: ExpandItem['options'], depth: number): ExpandPlan {
  if (!nav.collection && (options.filter !== undefined || options.orderby !== undefined || options.top !== undefined || options.skip !== undefined || options.count !== undefined)) {
    throw new UriSemanticError(`'${nav.name}' is single-valued: only $select and $expand apply inside its $expand.`, '$expand', 'BadRequest_InvalidRequestUrl');
  }
  const settings = input.model.service;
  const budget = input.expandBudget ?? settings.maxExpandedRows;
  // A collection's rows per parent are capped (option-limits.ts); what each of them may expand to is
  // the rest of the budget shared among them, so no entity's expansions pass maxExpandedRows.
  const cap = nav.collection ? expandCap(options.top, budget, settings, nav.name) : undefined;
  const nestedBudget = cap === undefined ? budget - 1 : Math.floor(budget / cap.rows) - 1;
  const nested = planQuery({ ...input, type: nav.target, options, depth, expandBudget: nestedBudget });
  const target = nav.target;
  const perRow = 1 + expandedRowsPerEntity(nested.expand);
  const inner = (scope: QueryScope): { query: SelectNode; innerScope: QueryScope } => {
    const innerScope = new QueryScope('$it', target, scope.aliases.fresh(), scope.aliases);
    const cols = entityColumns(target, innerScope.alias, scope.aliases, nested.read.select);
    const row = (): SqlExpr => {
      if (nested.read.json !== undefined) return nested.read.json(innerScope, cols).whole;
      const expandCols = nested.expand.map((e) => e.column(innerScope));
      const nestedJson = new Set(nested.expand.map((e) => e.columnName));
      const countCols = nested.expand.flatMap((e) => (e.countColumn === undefined ? [] : [e.countColumn(innerScope)]));
      return rowObject(input.dialect, [...cols, ...expandCols, ...countCols], nestedJson);
    };
    const where = and(navigationCondition(nav, scope.alias, innerScope.alias), nested.read.where?.(innerScope));
    // Ties of the model's default order are broken by the row order the indexes hold (no client pages
    // inside an expansion), which spares SQLite a sort by the key per parent; a type without one, or a
    // client's $orderby, is ordered by the key, as the navigation path is (and every engine is alike).
    const byRows = !nested.ordered && target.defaultOrderBy.length > 0;
    const tieBreak = byRows ? input.dialect.rowOrder(innerScope.alias, target.key.name) : col(innerScope.alias, target.key.name);
    const order = [...(nested.read.orderBy?.(innerScope) ?? []), { expr: tieBreak, direction: 'ASC' as const, notNull: true }];
    const query = select({
      columns: [{ expr: row(), alias: '_row' }],
      from: { kind: 'table', table: target.table, alias: innerScope.alias },
      joins: innerScope.joins,
      where,
      orderBy: nav.collection ? order : [],
      // One row more than the cap when a limit (not the client's $top) sets it: its presence is the overflow.
      limit: cap === undefined ? constant(1) : param(cap.limit === undefined ? cap.rows : cap.rows + 1),
      offset: nav.collection && nested.read.offset ? param(nested.read.offset) : undefined,
    });
    return { query, innerScope };
  };
  const plan: ExpandPlan = {
    nav,
    columnName: nav.name,
    countColumnName: options.count === true ? `${nav.name}@odata.count` : undefined,
    select: nested.read.select,
    selectList: nested.selectList,
    expand: nested.expand,
    maxRows: cap === undefined ? perRow : cap.rows * perRow,
    cap: cap === undefined ? 1 : cap.rows,
    correlated: nested.correlated,
    walks: nested.walks,
    column(scope) {
      const { query } = inner(scope);
      if (cap === undefined) return { expr: { kind: 'subquery', query }, alias: nav.name };
      const x = scope.aliases.fresh();
      const rows = col(x, '_row');
      const array = input.json === undefined ? input.dialect.jsonArrayAgg(rows) : input.dialect.jsonTextArrayAgg(rows);
      const overflow: SqlExpr = { kind: 'binary', operator: '>', left: COUNT_STAR, right: constant(cap.rows) };
      const message = expandCapMessage(nav.name, input.type.name, cap, settings);
      const agg = select({
        columns: [{ expr: cap.limit === undefined ? array : { kind: 'case', whens: [{ when: overflow, then: input.dialect.raiseLimit(param(message)) }], otherwise: array } }],
        from: { kind: 'derived', query, alias: x },
      });
      return { expr: { kind: 'subquery', query: agg }, alias: nav.name };
    },
  };
  if (options.count === true) {
    plan.countColumn = (scope) => {
      const innerScope = new QueryScope('$it', target, scope.aliases.fresh(), scope.aliases);
      const query = select({
        columns: [{ expr: COUNT_STAR }],
        from: { kind: 'table', table: target.table, alias: innerScope.alias },
        joins: innerScope.joins,
        where: and(navigationCondition(nav, scope.alias, innerScope.alias), nested.read.where?.(innerScope)),
      });
      return { expr: { kind: 'subquery', query }, alias: `${nav.name}@odata.count` };
    };
  }
  return plan;
}
