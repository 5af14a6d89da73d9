/**
 * An aggregating `$apply` as SQL (Data Aggregation §3): one statement, computed by the database. The
 * first `groupby`/`aggregate` reads the entity set (company, path conditions and the `filter`s before
 * it in WHERE, single-valued navigation paths as LEFT JOINs) with GROUP BY; each later one groups the
 * previous one's rows, a derived table; `top`/`skip` cut the rows in the order of the last `orderby`
 * (then the grouping columns); `concat` is a UNION ALL whose rows keep their branch and their position
 * in it. `$filter`, `$orderby`, `$top` and `$skip` then apply to the result in the outer query (URL
 * Conventions §5: system query options are evaluated after `$apply`); its sort ends with every
 * grouping column, so pages are stable. SQL column names are generated (c0, u0, ...), never the URL's.
 */
import type { EdmModel, EntityType } from '../edm/model.js';
import { NotImplementedError, UriSemanticError } from '../errors/odata-error.js';
import { and, col, constant, eq, param, select } from '../sql/build.js';
import type { FromItem, OrderItem, SelectColumn, SelectNode, SqlExpr } from '../sql/nodes.js';
import type { QueryOptions } from '../uri/ast.js';
import { assertNever } from '../util/assert-never.js';
import { AliasGenerator } from './alias-generator.js';
import { bindApply, type BoundAggregate, type BoundApply, type BoundOrder, type BoundStage, type BoundStep } from './bind-apply.js';
import { bindExpression, type BindScope } from './bind-expression.js';
import type { BoundExpr, PathRoot, ResultColumn, ResultShape } from './bound-ast.js';
import { isBoolean, typeName } from './expr-types.js';
import { enumValue, planExpression, type ExprPlanContext } from './plan-expression.js';
import type { Dialect } from '../sql/dialect.js';
import { SORT_PREFIX, strictlyAfter } from './plan-page.js';
import { companyCondition, COUNT_ALIAS, type PathCondition } from './plan-select.js';
import { checkLambdaDepth, checkOrderByLength, checkTop, lambdaDepth } from './option-limits.js';
import { collectionWalks, type CollectionWalk } from './read-cost.js';
import { QueryScope } from './query-scope.js';
import { memberGroupSelect, memberGrouping } from './plan-member-groups.js';
import type { TokenValue } from './skiptoken.js';

/** Alias of the result rows in the outer query. */
export const RESULT_ALIAS = 'r';
/** Columns of `concat` results: the branch a row comes from (its shape) and its position in that branch. */
export const BRANCH_COLUMN = '_branch';
const POSITION_COLUMN = '_pos';

/** What planning an aggregated read needs. */
export interface AggregationInput {
  readonly model: EdmModel;
  readonly type: EntityType;
  readonly options: QueryOptions;
  readonly ctx: ExprPlanContext;
}

/** An aggregated read before paging. */
export interface PlannedAggregation {
  /** `groups`: instances of one shape, paged by keyset; `concat`: several shapes (`_branch`), paged by offset. */
  readonly kind: 'groups' | 'concat';
  /** The shapes of the instances, by `_branch` (one for `groups`): properties in output order, with their SQL column. */
  readonly segments: readonly (readonly ResultColumn[])[];
  /** The columns that identify an instance of `groups` (the last grouping columns; none after `aggregate` alone). */
  readonly keys: readonly ResultColumn[];
  /** The sort keys before the identifying columns (`$orderby`, else the last `orderby` transformation). */
  readonly sortCount: number;
  /** Some expression reads related rows per row (a lambda or a `$count` path): the read's work grows with them. */
  readonly correlated: boolean;
  /** The lambdas and `$count`s over collections of its expressions, as the cost model prices them (read-cost.ts). */
  readonly walks: readonly CollectionWalk[];
  /** The result for a company and path: rows to select from, their filter and order, the output columns. */
  build(companyId: string | undefined, conditions: readonly PathCondition[]): { readonly from: FromItem; readonly where?: SqlExpr; readonly orderBy: readonly OrderItem[]; readonly columns: readonly SelectColumn[] };
}

/** true when `$apply` does more than filter (a `filter`-only `$apply` yields entities, read like any collection). */
export function aggregates(options: QueryOptions): boolean {
  return options.apply?.some((t) => t.kind !== 'filter' && t.kind !== 'identity') === true;
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
  checkTop(o.top, input.model.service, '$top');
  const bound = bindApply({ model: input.model, type: input.type, aliases: o.aliases }, o.apply);
  const expressions = boundExpressions(bound.steps);
  for (const e of expressions) checkLambdaDepth(e, input.model.service, '$apply');
  const applyCorrelated = expressions.some((e) => lambdaDepth(e) > 0);
  const applyWalks = expressions.flatMap(collectionWalks);
  if (bound.concat) return planConcat(input, bound, applyCorrelated, applyWalks);
  const shape = bound.root.result;
  if (shape === undefined) throw new Error('planAggregation of an $apply that yields entities');
  const filter = o.filter === undefined ? undefined : bindExpression(o.filter, scopeOf(input, bound.root, '$filter'));
  if (filter !== undefined && !isBoolean(filter.type)) throw new UriSemanticError(`$filter must be a Boolean expression, not ${typeName(filter.type)}.`, '$filter', 'BadRequest_InvalidRequestUrl');
  if (filter !== undefined) checkLambdaDepth(filter, input.model.service, '$filter');
  checkOrderByLength(o.orderby?.length ?? 0, '$orderby');
  const orderBy = o.orderby?.map((i) => ({ expr: bindExpression(i.expr, scopeOf(input, bound.root, '$orderby')), direction: i.direction }));
  const columns = [...shape.values()];
  const sortCount = (orderBy ?? lastOrder(bound.steps) ?? []).length;
  return {
    kind: 'groups',
    segments: [columns],
    keys: bound.keys,
    sortCount,
    correlated: applyCorrelated || (filter !== undefined && lambdaDepth(filter) > 0),
    walks: [...applyWalks, ...(filter === undefined ? [] : collectionWalks(filter))],
    build(companyId, conditions) {
      const aliases = new AliasGenerator();
      const flow = planSteps(input, bound.steps, { pending: [], keys: [] }, { companyId, conditions, aliases });
      if (flow.query === undefined) throw new Error('no aggregating step');
      const outer = new QueryScope('$it', input.type, RESULT_ALIAS, aliases);
      const plan = (e: BoundExpr): SqlExpr => planExpression(e, outer, input.ctx);
      const where = and(...flow.pending.map(plan), filter === undefined ? undefined : plan(filter));
      const sort = orderItems(input, outer, orderBy ?? flow.order ?? [], flow.keys);
      const output: SelectColumn[] = [
        ...columns.map((c) => ({ expr: col(RESULT_ALIAS, c.column), alias: c.column })),
        ...sort.slice(0, sortCount).map((s, i) => ({ expr: s.expr, alias: `${SORT_PREFIX}${i}` })),
      ];
      return { from: { kind: 'derived', query: flow.query, alias: RESULT_ALIAS }, where, orderBy: sort, columns: output };
    },
  };
}

/** The order items of `order` over the rows at `scope`, then the identifying columns ascending. */
function orderItems(input: AggregationInput, scope: QueryScope, order: readonly BoundOrder[], keys: readonly ResultColumn[]): OrderItem[] {
  const items: OrderItem[] = order.map((b) => {
    const e = planExpression(b.expr, scope, input.ctx);
    return { expr: b.expr.type.kind === 'enum' ? enumValue(e, b.expr.type.enumType) : e, direction: b.direction === 'asc' ? 'ASC' : 'DESC' };
  });
  for (const k of keys) items.push({ expr: col(scope.alias, k.column), direction: 'ASC' });
  return items;
}

/** Every bound expression of the steps, `concat` branches included (for the limits and the cost model). */
function boundExpressions(steps: readonly BoundStep[]): BoundExpr[] {
  return steps.flatMap((s): BoundExpr[] => {
    switch (s.kind) {
      case 'filter':
        return [s.predicate];
      case 'group':
        return [...s.stage.groupBy.map((g) => g.expr), ...s.stage.aggregates.flatMap((a) => (a.expr === undefined ? [] : [a.expr]))];
      case 'order':
        return s.items.map((i) => i.expr);
      case 'slice':
        return [];
      case 'concat':
        return s.branches.flatMap((b) => boundExpressions(b.steps));
      default:
        return assertNever(s, 'apply step');
    }
  });
}

/** The order of the last `orderby` step after the last stage (a stage's output has no order of its own). */
function lastOrder(steps: readonly BoundStep[]): readonly BoundOrder[] | undefined {
  let order: readonly BoundOrder[] | undefined;
  for (const s of steps) {
    if (s.kind === 'group') order = undefined;
    if (s.kind === 'order') order = s.items;
  }
  return order;
}

/** Where the steps have got: the rows so far (undefined while they are still the entity set), filters not yet applied, the order. */
interface Flow {
  readonly query?: SelectNode;
  readonly pending: readonly BoundExpr[];
  readonly order?: readonly BoundOrder[];
  readonly keys: readonly ResultColumn[];
  readonly shape?: ResultShape;
}

/** The per-request part of planning. */
interface Base {
  readonly companyId: string | undefined;
  readonly conditions: readonly PathCondition[];
  readonly aliases: AliasGenerator;
}

/** Plans `steps` (no `concat`) from `flow`. */
function planSteps(input: AggregationInput, steps: readonly BoundStep[], start: Flow, base: Base): Flow {
  let flow = start;
  for (const step of steps) {
    switch (step.kind) {
      case 'filter':
        flow = { ...flow, pending: [...flow.pending, step.predicate] };
        break;
      case 'group':
        flow = { query: groupSelect(input, step.stage, flow, base), pending: [], keys: [...step.stage.shape.values()].slice(0, step.stage.groupBy.length), shape: step.stage.shape };
        break;
      case 'order':
        flow = { ...flow, order: step.items };
        break;
      case 'slice':
        flow = { ...flow, query: sliceSelect(input, step, flow, base), pending: [] };
        break;
      case 'concat':
        throw new Error('concat planned as a step');
      default:
        return assertNever(step, 'apply step');
    }
  }
  return flow;
}

/** The rows of `flow` as a FROM item with a scope over them, and the pending filters planned in it. */
function source(input: AggregationInput, flow: Flow, base: Base): { from: FromItem; scope: QueryScope; where?: SqlExpr } {
  if (flow.query === undefined) {
    const t = base.aliases.fresh();
    const scope = new QueryScope('$it', input.type, t, base.aliases);
    const path = base.conditions.map((c) => eq(col(t, c.property), param(c.value)));
    const where = and(companyCondition(input.type, t, base.companyId), ...path, ...flow.pending.map((p) => planExpression(p, scope, input.ctx)));
    return { from: { kind: 'table', table: input.type.table, alias: t }, scope, where };
  }
  const s = base.aliases.fresh();
  const scope = new QueryScope('$it', input.type, s, base.aliases);
  return { from: { kind: 'derived', query: flow.query, alias: s }, scope, where: and(...flow.pending.map((p) => planExpression(p, scope, input.ctx))) };
}

function groupSelect(input: AggregationInput, stage: BoundStage, flow: Flow, base: Base): SelectNode {
  const members = flow.query === undefined ? memberGrouping(input.type, stage) : undefined;
  if (members !== undefined) {
    return memberGroupSelect(stage, members, base.aliases.fresh(), (expr, member) => {
      const { from, scope, where } = source(input, flow, base);
      const same = eq(planExpression(members.expr, scope, input.ctx), member);
      // The joins are read last: planning the expressions above adds them.
      return select({ columns: [{ expr }], from, joins: scope.joins, where: and(where, same) });
    });
  }
  const { from, scope, where } = source(input, flow, base);
  const plan = (e: BoundExpr): SqlExpr => planExpression(e, scope, input.ctx);
  const groupBy = stage.groupBy.map((g) => plan(g.expr));
  const shape = [...stage.shape.values()];
  const columns: SelectColumn[] = [
    ...groupBy.map((expr, i) => ({ expr, alias: (shape[i] as ResultColumn).column })),
    ...stage.aggregates.map((a, i) => ({ expr: aggregateExpr(a, plan), alias: (shape[groupBy.length + i] as ResultColumn).column })),
  ];
  // The joins are read last: planning the expressions above adds them.
  return select({ columns, from, joins: scope.joins, where, groupBy });
}

/** `skip(n)`/`top(n)`: the rows of `flow` in its order (then its identifying columns), cut. */
function sliceSelect(input: AggregationInput, step: Extract<BoundStep, { kind: 'slice' }>, flow: Flow, base: Base): SelectNode {
  const shape = flow.shape;
  if (shape === undefined) throw new Error('top/skip before an aggregation');
  const { from, scope, where } = source(input, flow, base);
  return select({
    columns: [...shape.values()].map((c) => ({ expr: col(scope.alias, c.column), alias: c.column })),
    from,
    where,
    orderBy: orderItems(input, scope, flow.order ?? [], flow.keys),
    limit: step.top === undefined ? undefined : param(step.top),
    offset: step.skip === 0 ? undefined : param(step.skip),
  });
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

/** A leaf of a `concat` tree: the steps that lead to one shape of instance. */
interface Branch {
  readonly steps: readonly BoundStep[];
  readonly shape: ResultShape;
}

/** The leaves of `bound`'s `concat` tree in order, each with every step from the start (the union keeps this order). */
function branches(bound: BoundApply, before: readonly BoundStep[]): Branch[] {
  const last = bound.steps[bound.steps.length - 1];
  if (last?.kind !== 'concat') {
    const shape = bound.root.result;
    if (shape === undefined) throw new Error('a concat branch without aggregated instances');
    return [{ steps: [...before, ...bound.steps], shape }];
  }
  const prefix = [...before, ...bound.steps.slice(0, -1)];
  return last.branches.flatMap((b) => branches(b, prefix));
}

/**
 * `concat` (Data Aggregation §3.3.1): one UNION ALL over the instances of every branch, each row with
 * its branch and its position in the branch's order, so the result keeps the branches' order. The
 * union's columns are the properties of all branches by name (u0, u1, ...), NULL where a branch lacks one.
 */
function planConcat(input: AggregationInput, bound: BoundApply, correlated: boolean, walks: readonly CollectionWalk[]): PlannedAggregation {
  const o = input.options;
  if (o.filter !== undefined || o.orderby !== undefined) throw new NotImplementedError('$filter and $orderby on the result of concat(...) are not supported; apply filter(...) and orderby(...) inside its branches.');
  const leaves = branches(bound, []);
  const unified = new Map<string, string>();
  for (const leaf of leaves) for (const name of leaf.shape.keys()) if (!unified.has(name)) unified.set(name, `u${unified.size}`);
  const segments = leaves.map((leaf) => [...leaf.shape.values()].map((c) => ({ ...c, column: unified.get(c.name) as string })));
  return {
    kind: 'concat',
    segments,
    keys: [],
    sortCount: 0,
    correlated,
    walks,
    build(companyId, conditions) {
      const aliases = new AliasGenerator();
      const base: Base = { companyId, conditions, aliases };
      const queries = leaves.map((leaf, i) => {
        const flow = planSteps(input, leaf.steps, { pending: [], keys: [] }, base);
        const { from, scope, where } = source(input, flow, base);
        const columns: SelectColumn[] = [...unified].map(([name, column]) => {
          const own = leaf.shape.get(name);
          return { expr: own === undefined ? fillerNull(input, leaves, name) : col(scope.alias, own.column), alias: column };
        });
        columns.push({ expr: constant(i), alias: BRANCH_COLUMN });
        columns.push({ expr: { kind: 'rowNumber', orderBy: orderItems(input, scope, flow.order ?? [], flow.keys) }, alias: POSITION_COLUMN });
        return select({ columns, from, where });
      });
      const output: SelectColumn[] = [...unified.values(), BRANCH_COLUMN].map((c) => ({ expr: col(RESULT_ALIAS, c), alias: c }));
      const orderBy: OrderItem[] = [BRANCH_COLUMN, POSITION_COLUMN].map((c) => ({ expr: col(RESULT_ALIAS, c), direction: 'ASC' }));
      return { from: { kind: 'union', queries, alias: RESULT_ALIAS }, orderBy, columns: output };
    },
  };
}

/** The NULL a branch without the property `name` gives, typed as the branches that have it store it. */
function fillerNull(input: AggregationInput, leaves: readonly { readonly shape: ResultShape }[], name: string): SqlExpr {
  const type = leaves.map((l) => l.shape.get(name)?.type).find((t) => t !== undefined);
  if (type === undefined || type.kind === 'null') return constant(null);
  if (type.kind === 'enum') return input.ctx.dialect.typedNull('TEXT');
  switch (type.name) {
    case 'Edm.Boolean':
    case 'Edm.Int32':
    case 'Edm.Int64':
      return input.ctx.dialect.typedNull('INTEGER');
    case 'Edm.Decimal':
    case 'Edm.Double':
      return input.ctx.dialect.typedNull('REAL');
    case 'Edm.Stream':
      return constant(null);
    case 'Edm.Guid':
    case 'Edm.String':
    case 'Edm.Date':
    case 'Edm.DateTimeOffset':
    case 'Edm.TimeOfDay':
      return input.ctx.dialect.typedNull('TEXT');
    default:
      return assertNever(type.name, 'EDM type');
  }
}

/** Where a page of aggregated instances starts and how many it holds. */
export interface AggregatedPageWindow {
  readonly limit?: number;
  readonly offset?: number;
  /** The sort and grouping values of the previous page's last row (a decoded `$skiptoken` of `groups`). */
  readonly after?: readonly TokenValue[];
}

/** The statements of an aggregated read: the page (the result columns, then the sort values `_sort0`, ...) and the count of all instances. */
export function aggregatedSelects(dialect: Dialect, plan: PlannedAggregation, companyId: string | undefined, conditions: readonly PathCondition[], page: AggregatedPageWindow): { rows: SelectNode; count: SelectNode } {
  const { from, where, orderBy, columns } = plan.build(companyId, conditions);
  const rows = select({
    columns,
    from,
    where: and(where, page.after === undefined ? undefined : strictlyAfter(dialect, orderBy, page.after)),
    orderBy,
    limit: page.limit === undefined ? undefined : param(page.limit),
    offset: page.offset === undefined || page.offset === 0 ? undefined : param(page.offset),
  });
  const count = select({ columns: [{ expr: { kind: 'aggregate', fn: 'count', distinct: false }, alias: COUNT_ALIAS }], from, where });
  return { rows, count };
}
