/**
 * An aggregating `$apply` as SQL (Data Aggregation §3): one statement, computed by the database. The
 * first stage reads the entity set (company, path conditions and `filter` transformations in WHERE,
 * single-valued navigation paths as LEFT JOINs) and groups it with GROUP BY; each later stage groups
 * the previous stage's rows, a derived table. `$filter`, `$orderby`, `$top` and `$skip` then apply to
 * the last stage's instances in the outer query (URL Conventions §5: system query options are
 * evaluated after `$apply`), whose sort ends with every grouping column so that pages are stable.
 */
import type { EdmModel, EntityType } from '../edm/model.js';
import { NotImplementedError, QueryLimitError, UriSemanticError } from '../errors/odata-error.js';
import { and, col, eq, param, select } from '../sql/build.js';
import type { TokenValue } from './skiptoken.js';
import { SORT_PREFIX, strictlyAfter } from './plan-page.js';
import type { OrderItem, SelectColumn, SelectNode, SqlExpr } from '../sql/nodes.js';
import type { QueryOptions } from '../uri/ast.js';
import { assertNever } from '../util/assert-never.js';
import { AliasGenerator } from './alias-generator.js';
import { bindApply, type BoundAggregate, type BoundApply, type BoundStage } from './bind-apply.js';
import { bindExpression, type BindScope } from './bind-expression.js';
import type { BoundExpr, PathRoot, ResultColumn } from './bound-ast.js';
import { isBoolean, typeName } from './expr-types.js';
import { enumValue, planExpression, type ExprPlanContext } from './plan-expression.js';
import { companyCondition, type PathCondition } from './plan-read.js';
import { QueryScope } from './query-scope.js';

/** Alias of the last stage's rows in the outer query. */
export const RESULT_ALIAS = 'r';

/** What planning an aggregated read needs. */
export interface AggregationInput {
  readonly model: EdmModel;
  readonly type: EntityType;
  readonly options: QueryOptions;
  readonly ctx: ExprPlanContext;
}

/** An aggregated read before paging: the grouped rows and what the outer query does with them. */
export interface PlannedAggregation {
  /** The properties of the result instances, in output order (grouping paths, then aliases). */
  readonly columns: readonly ResultColumn[];
  /** The columns that identify an instance (the last stage's grouping columns; none for `aggregate` alone). */
  readonly keys: readonly ResultColumn[];
  /** The sort keys of `$orderby` over the result, before the identifying columns. */
  readonly sortCount: number;
  /** The whole statement for a company and path: the stages as a derived table `r`, filtered and sorted. */
  build(companyId: string | undefined, conditions: readonly PathCondition[]): { readonly from: SelectNode; readonly where?: SqlExpr; readonly orderBy: readonly OrderItem[] };
}

/** true when `$apply` groups or aggregates (a `filter`-only `$apply` still yields entities). */
export function aggregates(options: QueryOptions): boolean {
  return options.apply?.some((t) => t.kind !== 'filter') === true;
}

function scopeOf(input: AggregationInput, root: PathRoot, option: string): BindScope {
  return { model: input.model, it: root, variables: new Map(), aliases: input.options.aliases, option, aliasDepth: 0 };
}

/** Binds `$apply`, then `$filter` and `$orderby` over its result, and checks the options that do not apply. */
export function planAggregation(input: AggregationInput): PlannedAggregation {
  const o = input.options;
  if (o.apply === undefined) throw new Error('planAggregation without $apply');
  if (o.select !== undefined) throw new NotImplementedError('$select together with an aggregating $apply is not supported: the result has exactly the properties $apply names.');
  if (o.expand !== undefined) throw new NotImplementedError('$expand together with an aggregating $apply is not supported.');
  if (o.search !== undefined) throw new NotImplementedError('$search is not supported; use filter(...) in $apply or $filter.');
  if (o.compute !== undefined) throw new NotImplementedError('$compute is not supported.');
  const bound = bindApply({ model: input.model, type: input.type, aliases: o.aliases }, o.apply);
  const last = bound.stages[bound.stages.length - 1];
  if (last === undefined) throw new Error('planAggregation of a filter-only $apply');
  const root = bound.root;
  const filter = o.filter === undefined ? undefined : bindExpression(o.filter, scopeOf(input, root, '$filter'));
  if (filter !== undefined && !isBoolean(filter.type)) throw new UriSemanticError(`$filter must be a Boolean expression, not ${typeName(filter.type)}.`, '$filter', 'BadRequest_InvalidRequestUrl');
  if ((o.orderby?.length ?? 0) > 8) throw new QueryLimitError('$orderby takes at most 8 items.', '$orderby');
  const orderBy = (o.orderby ?? []).map((i) => ({ expr: bindExpression(i.expr, scopeOf(input, root, '$orderby')), direction: i.direction }));
  const columns = [...last.shape.values()];
  const keys = columns.slice(0, last.groupBy.length);
  return {
    columns,
    keys,
    sortCount: orderBy.length,
    build(companyId, conditions) {
      const aliases = new AliasGenerator();
      const from = stagesQuery(input, bound, companyId, conditions, aliases);
      const outer = new QueryScope('$it', input.type, RESULT_ALIAS, aliases);
      const plan = (e: BoundExpr): SqlExpr => planExpression(e, outer, input.ctx);
      const where = and(...bound.after.map(plan), filter === undefined ? undefined : plan(filter));
      const sort: OrderItem[] = orderBy.map((b) => {
        const e = plan(b.expr);
        return { expr: b.expr.type.kind === 'enum' ? enumValue(e, b.expr.type.enumType) : e, direction: b.direction === 'asc' ? 'ASC' : 'DESC' };
      });
      for (const k of keys) sort.push({ expr: col(RESULT_ALIAS, k.column), direction: 'ASC' });
      return { from, where, orderBy: sort };
    },
  };
}

/** Where a page of aggregated instances starts and how many it holds. */
export interface AggregatedPageWindow {
  readonly limit?: number;
  readonly offset?: number;
  /** The sort and grouping values of the previous page's last row (a decoded `$skiptoken`). */
  readonly after?: readonly TokenValue[];
}

/**
 * The statements of an aggregated read: the page (the result columns, then the sort values as
 * `_sort0`, ... for the next link) and the count of all instances.
 */
export function aggregatedSelects(plan: PlannedAggregation, companyId: string | undefined, conditions: readonly PathCondition[], page: AggregatedPageWindow): { rows: SelectNode; count: SelectNode } {
  const { from, where, orderBy } = plan.build(companyId, conditions);
  const source = { kind: 'derived' as const, query: from, alias: RESULT_ALIAS };
  const columns: SelectColumn[] = [
    ...plan.columns.map((c) => ({ expr: col(RESULT_ALIAS, c.column), alias: c.column })),
    ...orderBy.slice(0, plan.sortCount).map((o, i) => ({ expr: o.expr, alias: `${SORT_PREFIX}${i}` })),
  ];
  const rows = select({
    columns,
    from: source,
    where: and(where, page.after === undefined ? undefined : strictlyAfter(orderBy, page.after)),
    orderBy,
    limit: page.limit === undefined ? undefined : param(page.limit),
    offset: page.offset === undefined || page.offset === 0 ? undefined : param(page.offset),
  });
  const count = select({ columns: [{ expr: { kind: 'aggregate', fn: 'count', distinct: false }, alias: 'n' }], from: source, where });
  return { rows, count };
}

/** The stages as one SELECT whose columns are the last stage's (c0, c1, ...). */
function stagesQuery(input: AggregationInput, bound: BoundApply, companyId: string | undefined, conditions: readonly PathCondition[], aliases: AliasGenerator): SelectNode {
  let query: SelectNode | undefined;
  for (const stage of bound.stages) {
    if (query === undefined) {
      const t = aliases.fresh();
      const scope = new QueryScope('$it', input.type, t, aliases);
      const path = conditions.map((c) => eq(col(t, c.property), param(c.value)));
      query = stageSelect(input, stage, scope, { kind: 'table', table: input.type.table, alias: t }, [companyCondition(input.type, t, companyId), ...path]);
    } else {
      const s = aliases.fresh();
      query = stageSelect(input, stage, new QueryScope('$it', input.type, s, aliases), { kind: 'derived', query, alias: s }, []);
    }
  }
  if (query === undefined) throw new Error('no aggregating stage');
  return query;
}

function stageSelect(input: AggregationInput, stage: BoundStage, scope: QueryScope, from: SelectNode['from'], conditions: readonly (SqlExpr | undefined)[]): SelectNode {
  const plan = (e: BoundExpr): SqlExpr => planExpression(e, scope, input.ctx);
  const where = and(...conditions, ...stage.before.map(plan));
  const groupBy = stage.groupBy.map((g) => plan(g.expr));
  const shape = [...stage.shape.values()];
  const columns: SelectColumn[] = [
    ...groupBy.map((expr, i) => ({ expr, alias: (shape[i] as ResultColumn).column })),
    ...stage.aggregates.map((a, i) => ({ expr: aggregateExpr(a, plan), alias: (shape[groupBy.length + i] as ResultColumn).column })),
  ];
  // The joins are read last: planning the expressions above adds them.
  return select({ columns, from, joins: scope.joins, where, groupBy });
}

/** An aggregate of a group (Data Aggregation §3.1.3): nulls are ignored, `$count` counts the instances. */
function aggregateExpr(a: BoundAggregate, plan: (e: BoundExpr) => SqlExpr): SqlExpr {
  const arg = a.expr === undefined ? undefined : plan(a.expr);
  const of = (fn: 'sum' | 'avg' | 'min' | 'max' | 'count', distinct = false): SqlExpr => {
    if (arg === undefined) throw new Error(`${a.fn} without an argument`);
    return { kind: 'aggregate', fn, arg, distinct };
  };
  switch (a.fn) {
    case 'count':
      return { kind: 'aggregate', fn: 'count', distinct: false };
    case 'sum':
      return of('sum');
    case 'average':
      return of('avg');
    case 'min':
      return of('min');
    case 'max':
      return of('max');
    case 'countdistinct':
      return of('count', true);
    default:
      return assertNever(a.fn, 'aggregate function');
  }
}
