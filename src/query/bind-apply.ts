/**
 * Binds `$apply` (OData Data Aggregation Extension 4.0 §3) to the model: `filter` through the same
 * binder as `$filter`, `groupby` paths through single-valued navigations to properties, `aggregate`
 * expressions with their result types, `orderby`/`top`/`skip` over aggregated instances, and `concat`
 * branches. Each aggregating transformation becomes a stage whose output (grouping paths, then
 * aliases) is what later transformations, `$filter` and `$orderby` name. Pure; what the grammar
 * allows but the service does not do is 501 naming it.
 */
import type { EdmModel, EntityType, PrimitiveTypeName } from '../edm/model.js';
import { NotImplementedError, UriSemanticError } from '../errors/odata-error.js';
import type { AggregateItem, ApplyTransformation, Expr, MemberExpr, StandardAggregation } from '../uri/ast.js';
import { assertNever } from '../util/assert-never.js';
import { bindExpression, type BindScope } from './bind-expression.js';
import type { BoundExpr, ExprType, PathRoot, ResultColumn, ResultShape } from './bound-ast.js';
import { isBoolean, isNumeric, prim, typeName } from './expr-types.js';

/** What an aggregated value is computed with: the standard methods and `$count`. */
export type AggregateFunction = StandardAggregation | 'count';

/** A grouping property of a stage: its path as written and its value per input instance. */
export interface BoundGrouping {
  readonly name: string;
  readonly expr: BoundExpr;
}

/** An aggregated value of a stage (`expr` is absent for `$count`). */
export interface BoundAggregate {
  readonly alias: string;
  readonly fn: AggregateFunction;
  readonly expr?: BoundExpr;
  readonly type: ExprType;
}

/** One aggregating transformation (`groupby`, with its `aggregate`, or `aggregate` alone). */
export interface BoundStage {
  readonly groupBy: readonly BoundGrouping[];
  readonly aggregates: readonly BoundAggregate[];
  /** The properties of the instances the stage produces. */
  readonly shape: ResultShape;
}

/** A sort key of an `orderby` transformation, over aggregated instances. */
export interface BoundOrder {
  readonly expr: BoundExpr;
  readonly direction: 'asc' | 'desc';
}

/** One bound transformation, in the order `$apply` gives them (`identity` leaves none). */
export type BoundStep =
  /** `filter`: over entities before the first aggregation, over aggregated instances after it. */
  | { readonly kind: 'filter'; readonly predicate: BoundExpr }
  | { readonly kind: 'group'; readonly stage: BoundStage }
  /** `orderby`: the order later `top`/`skip` and the response follow (aggregated instances only). */
  | { readonly kind: 'order'; readonly items: readonly BoundOrder[] }
  /** `skip(n)` and `top(n)`. */
  | { readonly kind: 'slice'; readonly skip: number; readonly top?: number }
  /** `concat`, always the last step: the union of each branch applied to the same input. */
  | { readonly kind: 'concat'; readonly branches: readonly BoundApply[] };

/** A bound `$apply` (or one branch of a `concat`). */
export interface BoundApply {
  readonly steps: readonly BoundStep[];
  /** The scope of paths after the steps: the entity type, carrying the shape of the aggregated instances when there are some. */
  readonly root: PathRoot;
  /** The properties that identify an aggregated instance: the grouping properties of the last stage. */
  readonly keys: readonly ResultColumn[];
  /** true when the steps end in `concat`: instances of several shapes. */
  readonly concat: boolean;
}

/** What binding needs. */
export interface ApplyBindInput {
  readonly model: EdmModel;
  readonly type: EntityType;
  readonly aliases: ReadonlyMap<string, Expr>;
}

const OPTION = '$apply';

function typeError(message: string): UriSemanticError {
  return new UriSemanticError(message, OPTION, 'BadRequest_InvalidRequestUrl');
}

function scopeOf(input: ApplyBindInput, root: PathRoot): BindScope {
  return { model: input.model, it: root, variables: new Map(), aliases: input.aliases, option: OPTION, aliasDepth: 0 };
}

/** Binds the transformations of `$apply` on `input.type`, in order; `start` is the input of a `concat` branch. */
export function bindApply(input: ApplyBindInput, trafos: readonly ApplyTransformation[], start?: Pick<BoundApply, 'root' | 'keys'>): BoundApply {
  const steps: BoundStep[] = [];
  let root: PathRoot = start?.root ?? { variable: '$it', type: input.type };
  let keys: readonly ResultColumn[] = start?.keys ?? [];
  const beforeAggregation = (name: string): NotImplementedError =>
    new NotImplementedError(`${name} in $apply before groupby or aggregate is not supported; filter(...) entities there, and use ${name === 'orderby' ? '$orderby' : `$${name}`} on them.`);
  trafos.forEach((t, i) => {
    switch (t.kind) {
      case 'filter': {
        const predicate = bindExpression(t.predicate, scopeOf(input, root));
        if (!isBoolean(predicate.type)) throw typeError(`filter(...) in $apply needs a Boolean expression, not ${typeName(predicate.type)}.`);
        steps.push({ kind: 'filter', predicate });
        break;
      }
      case 'groupby':
      case 'aggregate': {
        const stage = bindStage(input, root, t);
        steps.push({ kind: 'group', stage });
        root = { variable: '$it', type: input.type, result: stage.shape };
        keys = [...stage.shape.values()].slice(0, stage.groupBy.length);
        break;
      }
      case 'orderby':
        if (root.result === undefined) throw beforeAggregation('orderby');
        steps.push({ kind: 'order', items: t.items.map((item) => ({ expr: bindExpression(item.expr, scopeOf(input, root)), direction: item.direction })) });
        break;
      case 'top':
      case 'skip':
        if (root.result === undefined) throw beforeAggregation(t.kind);
        steps.push(t.kind === 'top' ? { kind: 'slice', skip: 0, top: t.count } : { kind: 'slice', skip: t.count });
        break;
      case 'identity':
        break;
      case 'concat': {
        if (i !== trafos.length - 1) throw new NotImplementedError('Transformations after concat(...) in $apply are not supported; apply them inside each branch.');
        const branches = t.branches.map((branch) => bindApply(input, branch, { root, keys }));
        if (branches.some((b) => !b.concat && b.root.result === undefined)) {
          throw new NotImplementedError('concat(...) of branches that yield entities is not supported; each branch must group or aggregate.');
        }
        steps.push({ kind: 'concat', branches });
        return;
      }
      case 'unsupported':
        throw notSupported(t.name);
      default:
        return assertNever(t, 'transformation');
    }
  });
  return { steps, root, keys, concat: steps[steps.length - 1]?.kind === 'concat' };
}

/** true when the steps yield aggregated instances (not entities of the type). */
export function yieldsAggregates(bound: BoundApply): boolean {
  return bound.concat || bound.root.result !== undefined;
}

/** The SQL column of the n-th property of a stage's output. */
export function resultColumn(n: number): string {
  return `c${n}`;
}

function notSupported(name: string): NotImplementedError {
  return new NotImplementedError(`The transformation ${name} in $apply is not supported; this service supports aggregate, groupby, filter, orderby, top, skip, identity and concat.`);
}

function bindStage(input: ApplyBindInput, root: PathRoot, t: Extract<ApplyTransformation, { kind: 'groupby' | 'aggregate' }>): BoundStage {
  let items: readonly AggregateItem[] = [];
  const groupBy: BoundGrouping[] = [];
  if (t.kind === 'aggregate') {
    items = t.items;
  } else {
    for (const g of t.groupBy) {
      if (g.kind === 'unsupported') throw new NotImplementedError(`${g.name}(...) in groupby is not supported; group by property paths.`);
      const grouping = bindGrouping(input, root, g.path);
      if (groupBy.some((other) => other.name === grouping.name)) throw typeError(`groupby names '${grouping.name}' twice.`);
      groupBy.push(grouping);
    }
    const then = t.then ?? [];
    const [first, ...more] = then;
    if (first !== undefined && (first.kind !== 'aggregate' || more.length > 0)) {
      const names = then.map((x) => (x.kind === 'unsupported' ? x.name : x.kind)).join('/');
      throw new NotImplementedError(`groupby with ${names} as its second parameter is not supported; only aggregate(...) is.`);
    }
    if (first?.kind === 'aggregate') items = first.items;
  }
  const columns = new Map<string, ResultColumn>(groupBy.map((g, i) => [g.name, { name: g.name, type: g.expr.type, column: resultColumn(i) }]));
  const taken = new Set([...groupBy.map((g) => g.name.split('/')[0] ?? g.name)]);
  const aggregates = items.map((item) => {
    const a = bindAggregate(input, root, item);
    const inputName = root.result === undefined && (input.type.propertyByName.has(a.alias) || input.type.navigationByName.has(a.alias));
    if (taken.has(a.alias) || inputName) throw typeError(`The alias '${a.alias}' is already the name of a property; choose another.`);
    taken.add(a.alias);
    columns.set(a.alias, { name: a.alias, type: a.type, column: resultColumn(columns.size) });
    return a;
  });
  return { groupBy, aggregates, shape: columns };
}

/** A grouping path: single-valued navigations ending in a property (Data Aggregation §3.10, `groupingProperty`). */
function bindGrouping(input: ApplyBindInput, root: PathRoot, path: MemberExpr): BoundGrouping {
  const names = path.segments.map((s) => (s.kind === 'name' ? s.name : s.kind === 'cast' ? s.typeName : ''));
  if (root.result === undefined) {
    let type: EntityType | undefined = root.type;
    for (const [i, seg] of path.segments.entries()) {
      if (seg.kind !== 'name' || type === undefined) break;
      const nav = type.navigationByName.get(seg.name);
      if (nav === undefined || !nav.exposed) break;
      if (i === path.segments.length - 1) {
        throw new NotImplementedError(`Grouping by the navigation property '${names.join('/')}' is not supported; group by its properties, e.g. ${names.join('/')}/${nav.target.key.name}.`);
      }
      if (nav.collection) throw typeError(`groupby paths follow single-valued navigations only; '${seg.name}' is a collection.`);
      type = nav.target;
    }
  }
  return { name: names.join('/'), expr: bindExpression(path, scopeOf(input, root)) };
}

const ORDERED: ReadonlySet<PrimitiveTypeName> = new Set(['Edm.String', 'Edm.Int32', 'Edm.Int64', 'Edm.Decimal', 'Edm.Double', 'Edm.Date', 'Edm.DateTimeOffset', 'Edm.TimeOfDay', 'Edm.Guid']);

/** One aggregate expression with its result type (Data Aggregation §3.1.3). */
function bindAggregate(input: ApplyBindInput, root: PathRoot, item: AggregateItem): BoundAggregate {
  if (item.from.length > 0) throw new NotImplementedError('aggregate(... from ...) is not supported; aggregate in two steps with groupby(...)/aggregate(...).');
  switch (item.kind) {
    case 'count':
      if (item.path.length > 0) throw new NotImplementedError('path/$count in aggregate(...) is not supported; use $count, or countdistinct on a property.');
      return { alias: item.alias, fn: 'count', type: prim('Edm.Int64') };
    case 'custom': {
      const written = item.path.segments.map((s) => (s.kind === 'name' ? s.name : '')).join('/');
      throw typeError(`'${written}' is not a custom aggregate (this service declares none); aggregate a value with a method, e.g. ${written} with sum as total.`);
    }
    case 'method': {
      if (item.method.kind === 'custom') throw new NotImplementedError(`The custom aggregation method ${item.method.name} is not supported; use sum, min, max, average or countdistinct.`);
      const fn = item.method.name;
      const expr = bindExpression(item.expr, scopeOf(input, root));
      if (expr.kind === 'property' && expr.navigations.length > 0 && (fn === 'sum' || fn === 'average')) {
        // §3.1.2: a path through navigations aggregates each related entity once, not once per input instance.
        throw new NotImplementedError(`${fn} over the navigation path in '${item.alias}' is not supported (it would count each related entity once); aggregate on the related entity set instead.`);
      }
      return { alias: item.alias, fn, expr, type: resultType(fn, expr.type, item.alias) };
    }
    default:
      return assertNever(item, 'aggregate item');
  }
}

function resultType(fn: StandardAggregation, t: ExprType, alias: string): ExprType {
  const needs = (what: string): UriSemanticError => typeError(`${fn} in '${alias}' needs ${what}, not ${typeName(t)}.`);
  switch (fn) {
    case 'countdistinct':
      return prim('Edm.Int64');
    case 'sum':
      if (!isNumeric(t) || t.kind !== 'primitive') throw needs('a number');
      return t.name === 'Edm.Int32' || t.name === 'Edm.Int64' ? prim('Edm.Int64') : t;
    case 'average':
      if (!isNumeric(t) || t.kind !== 'primitive') throw needs('a number');
      return t.name === 'Edm.Double' ? t : prim('Edm.Decimal');
    case 'min':
    case 'max':
      if (t.kind === 'enum') throw new NotImplementedError(`${fn} of an enumeration ('${alias}') is not supported.`);
      if (t.kind !== 'primitive' || !ORDERED.has(t.name)) throw needs('ordered values (numbers, text, dates, times)');
      return t;
    default:
      return assertNever(fn, 'aggregation method');
  }
}
