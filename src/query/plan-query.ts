/**
 * Turns the request's query options into the parts of a read plan, in one fixed order (after
 * AspNetCore's ApplyTo): $filter, $orderby (the key is appended by planSelect), $select, $expand,
 * $skip/$top. Binding happens here, so every name and literal is checked before any SQL exists.
 */
import type { EdmModel, EntityType } from '../edm/model.js';
import { UriSemanticError, NotImplementedError } from '../errors/odata-error.js';
import { checkLambdaDepth, checkOrderByLength, checkTop, lambdaDepth } from './option-limits.js';
import type { NestedQueryOptions, OrderByItem, SelectItem, Expr } from '../uri/ast.js';
import type { OrderItem } from '../sql/nodes.js';
import type { Dialect } from '../sql/dialect.js';
import type { ReadPlanInput } from './plan-select.js';
import { bindExpression, type BindScope } from './bind-expression.js';
import { BOOLEAN, type BoundExpr, type PathRoot } from './bound-ast.js';
import { bindApply } from './bind-apply.js';
import { isBoolean, typeName } from './expr-types.js';
import { enumValue, planExpression, type ExprPlanContext } from './plan-expression.js';
import type { QueryScope } from './query-scope.js';
import { planExpand, type ExpandPlan } from './plan-expand.js';
import { collectionWalks, type CollectionWalk } from './read-cost.js';
import { entityJsonExpr, type SqlJsonOptions } from './plan-entity-json.js';

/** The query-option part of a read. */
export interface PlannedQuery {
  readonly read: Pick<ReadPlanInput, 'select' | 'where' | 'orderBy' | 'limit' | 'offset' | 'extraColumns' | 'json'>;
  /** `$select` names in request order (for the context URL), undefined when absent or `*`. */
  readonly selectList?: readonly string[];
  readonly count: boolean;
  /** Bound sort keys (without the key), for paging. */
  readonly orderBy: readonly { readonly expr: BoundExpr; readonly direction: 'asc' | 'desc' }[];
  readonly expand: readonly ExpandPlan[];
  /** The request filters this level ($filter). */
  readonly filtered: boolean;
  /** The request orders this level ($orderby), rather than by the type's default order. */
  readonly ordered: boolean;
  /**
   * A lambda or `$count` over a collection in $filter or $orderby, here or in an expansion: work per
   * row that grows with the related rows (read-cost.ts sends such reads to a read thread).
   */
  readonly correlated: boolean;
  /** The lambdas and `$count`s over collections of this level's $filter and $orderby, as the cost model prices them. */
  readonly walks: readonly CollectionWalk[];
}

/** What planning needs besides the options. */
export interface QueryPlanInput {
  readonly model: EdmModel;
  /** The SQL dialect of the database the plan is for. */
  readonly dialect: Dialect;
  readonly type: EntityType;
  readonly options: NestedQueryOptions;
  readonly aliases: ReadonlyMap<string, Expr>;
  readonly now: string;
  /** Current $expand depth (0 at the top). */
  readonly depth: number;
  /**
   * Expanded entities one entity of this level may still have under it, all levels together
   * (`limits.maxExpandedRows` at the top; less inside expanded collections: option-limits.ts).
   */
  readonly expandBudget?: number;
  /** When set, rows are read as entity JSON text written by the database (expansions included). */
  readonly json?: SqlJsonOptions;
}

/** Binds a Boolean expression for `$filter`. */
export function bindFilter(input: QueryPlanInput, filter: Expr): BoundExpr {
  const it: PathRoot = { variable: '$it', type: input.type };
  const scope: BindScope = { model: input.model, it, variables: new Map(), aliases: input.aliases, option: '$filter', aliasDepth: 0 };
  const bound = bindExpression(filter, scope);
  if (!isBoolean(bound.type)) throw new UriSemanticError(`$filter must be a Boolean expression, not ${typeName(bound.type)}.`, '$filter', 'BadRequest_InvalidRequestUrl');
  checkLambdaDepth(bound, input.model.service, '$filter');
  return bound;
}

function bindOrderBy(input: QueryPlanInput, items: readonly OrderByItem[]): PlannedQuery['orderBy'] {
  const it: PathRoot = { variable: '$it', type: input.type };
  const scope: BindScope = { model: input.model, it, variables: new Map(), aliases: input.aliases, option: '$orderby', aliasDepth: 0 };
  checkOrderByLength(items.length, '$orderby');
  return items.map((i) => {
    const expr = bindExpression(i.expr, scope);
    checkLambdaDepth(expr, input.model.service, '$orderby');
    return { expr, direction: i.direction };
  });
}

function selection(type: EntityType, items: readonly SelectItem[] | undefined): { select?: Set<string>; list?: string[] } {
  if (items === undefined || items.some((s) => s.kind === 'star')) return {};
  const select = new Set<string>();
  const list: string[] = [];
  for (const item of items) {
    if (item.kind === 'qualifiedStar' || item.kind === 'operation') continue; // actions are not returned inline
    if (item.kind !== 'path' || item.segments.length !== 1 || item.segments[0]?.kind !== 'name' || item.options !== undefined) {
      throw new NotImplementedError('Only property names are supported in $select.');
    }
    const name = item.segments[0].name;
    if (!type.propertyByName.has(name)) {
      if (type.navigationByName.get(name)?.exposed === true) continue; // a navigation in $select selects nothing extra
      throw new UriSemanticError(`Could not find a property named '${name}' on type '${type.qualifiedName}'.`, '$select');
    }
    if (!select.has(name)) list.push(name);
    select.add(name);
  }
  return { select, list };
}

/** The model's default sort of a type (used when the request has no $orderby). */
function defaultOrder(type: EntityType): PlannedQuery['orderBy'] {
  const it: PathRoot = { variable: '$it', type };
  return type.defaultOrderBy.map((name) => {
    const property = type.propertyByName.get(name);
    if (property === undefined) throw new Error(`defaultOrderBy names unknown property ${name}`);
    return { expr: { kind: 'property', root: it, navigations: [], property, type: property.type }, direction: 'asc' as const };
  });
}

/** The entity JSON builder of a planned level: its columns, selection and expansions (see plan-entity-json.ts). */
export function entityJson(type: EntityType, json: SqlJsonOptions, select: ReadonlySet<string> | undefined, expand: readonly ExpandPlan[]): NonNullable<ReadPlanInput['json']> {
  return (scope, columns) =>
    entityJsonExpr(
      type,
      columns,
      json,
      select,
      expand.map((e) => ({ name: e.columnName, value: e.column(scope).expr, count: e.countColumn?.(scope).expr })),
      scope,
    );
}

/** The SQL context of expression planning. */
export function exprContext(dialect: Dialect, now: string): ExprPlanContext {
  return { dialect, now };
}

function conjunction(a: BoundExpr | undefined, b: BoundExpr): BoundExpr {
  return a === undefined ? b : { kind: 'logical', operator: 'and', left: a, right: b, type: BOOLEAN };
}

/**
 * The `filter` transformations of a `$apply` that only filters: its result are entities of the type,
 * read like any collection (an aggregating `$apply` is planned by plan-apply.ts).
 */
function applyFilters(input: QueryPlanInput): BoundExpr | undefined {
  const trafos = input.options.apply;
  if (trafos === undefined) return undefined;
  if (input.depth > 0) throw new NotImplementedError('$apply inside $expand is not supported.');
  const bound = bindApply({ model: input.model, type: input.type, aliases: input.aliases }, trafos);
  let all: BoundExpr | undefined;
  for (const step of bound.steps) {
    if (step.kind !== 'filter') throw new Error('an aggregating $apply planned as an entity read');
    all = conjunction(all, step.predicate);
  }
  return all;
}

/** Plans the query options of a read of `type`. */
export function planQuery(input: QueryPlanInput): PlannedQuery {
  const o = input.options;
  const ctx = exprContext(input.dialect, input.now);
  if (o.search !== undefined) throw new NotImplementedError('$search is not supported; use $filter with contains().');
  if (o.compute !== undefined) throw new NotImplementedError('$compute is not supported.');
  checkTop(o.top, input.model.service, input.depth === 0 ? '$top' : '$top inside $expand');
  const applied = applyFilters(input);
  const filter = o.filter === undefined ? applied : conjunction(applied, bindFilter(input, o.filter));
  const orderBy = o.orderby === undefined ? defaultOrder(input.type) : bindOrderBy(input, o.orderby);
  const { select, list } = selection(input.type, o.select);
  const expand = o.expand === undefined ? [] : planExpand(input, o.expand);
  const read: PlannedQuery['read'] = {
    select,
    where: filter === undefined ? undefined : (scope: QueryScope) => planExpression(filter, scope, ctx),
    orderBy:
      orderBy.length === 0
        ? undefined
        : (scope: QueryScope): OrderItem[] =>
            orderBy.map((b) => {
              const e = planExpression(b.expr, scope, ctx);
              return { expr: b.expr.type.kind === 'enum' ? enumValue(e, b.expr.type.enumType) : e, direction: b.direction === 'asc' ? 'ASC' : 'DESC' };
            }),
    extraColumns:
      expand.length === 0 || input.json !== undefined
        ? undefined
        : (scope: QueryScope) => expand.flatMap((e) => (e.countColumn === undefined ? [e.column(scope)] : [e.column(scope), e.countColumn(scope)])),
    json: input.json === undefined ? undefined : entityJson(input.type, input.json, select, expand),
    limit: o.top,
    offset: o.skip,
  };
  const correlated = (filter !== undefined && lambdaDepth(filter) > 0) || orderBy.some((b) => lambdaDepth(b.expr) > 0) || expand.some((e) => e.correlated);
  const walks = [...(filter === undefined ? [] : collectionWalks(filter)), ...orderBy.flatMap((b) => collectionWalks(b.expr))];
  return { read, selectList: list, count: o.count === true, orderBy, expand, filtered: filter !== undefined, ordered: o.orderby !== undefined, correlated, walks };
}
