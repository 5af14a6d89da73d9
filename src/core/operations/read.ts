/**
 * GET on entity sets, navigations, single entities, `$count` and single properties.
 */
import { compile, type CompiledQuery } from '../../sql/compile.js';
import type { EntityType } from '../../edm/model.js';
import type { StoredValue } from '../../edm/values.js';
import { storedToJson } from '../../edm/values.js';
import { COUNT_ALIAS, JSON_ALIAS, planSelect } from '../../query/plan-select.js';
import type { PlannedQuery } from '../../query/plan-query.js';
import { PAGE_ALIAS, planReadRequest, type ReadPlan } from '../../query/plan-read-request.js';
import type { ReadStep, StepResult } from '../../db/read-steps.js';
import type { DbRow } from '../../db/engine.js';
import { QueryLimitError } from '../../errors/odata-error.js';
import { limitSetting } from '../../edm/service-limits.js';
import type { ExpandPlan } from '../../query/plan-expand.js';
import { contextPath, contextUrl, keyLiteral } from '../../serialize/context-url.js';
import { rowEtag, type ExpandShape } from '../../serialize/entity-json.js';
import { negotiateJson, jsonContentType } from '../format.js';
import type { OperationContext } from '../operation-context.js';
import type { ODataResponse } from '../request.js';
import { collectionJoinedResponse, collectionResponse, entityResponse, entityTextResponse, jsonResponse, noContent } from '../responses.js';
import { recordNotFound, resolvePath, type ResolvedPath } from '../../store/resolve-path.js';
import { andThen } from '../../util/maybe-promise.js';
import { SORT_PREFIX } from '../../query/plan-page.js';
import { aggregates } from '../../query/plan-apply.js';
import { countAggregated, readAggregated } from './read-aggregated.js';
import { pageBudget } from './page-budget.js';

/** The shapes the serializer needs for expanded navigations. */
export function expandShapes(plans: readonly ExpandPlan[]): ExpandShape[] {
  return plans.map((p) => ({
    name: p.columnName,
    target: p.nav.target,
    collection: p.nav.collection,
    countColumn: p.countColumnName,
    select: p.select,
    expand: expandShapes(p.expand),
  }));
}

/** The `$select`/`$expand` part of a context URL (4.0 form: expanded navigations without parentheses, as Power Query requires). */
export function contextSelect(q: PlannedQuery): string[] | undefined {
  // Each level consults its own $select: a navigation is listed bare only when its parent has one.
  const list = (selectList: readonly string[] | undefined, plans: readonly ExpandPlan[]): string[] => [
    ...(selectList ?? []),
    ...plans.flatMap((p) => {
      const inner = list(p.selectList, p.expand);
      return inner.length > 0 ? [`${p.nav.name}(${inner.join(',')})`] : selectList !== undefined ? [p.nav.name] : [];
    }),
  ];
  const parts = list(q.selectList, q.expand);
  return parts.length === 0 ? undefined : parts;
}

/**
 * Runs a read's steps through the service's read executor (db/sqlite/sqlite-read-executor.ts): on the event loop,
 * or in a read thread with a deadline when the cost model says so; `cancellable` gives the same steps
 * compiled for a thread. Synchronous when the read stays on the event loop.
 */
function runRead<T>(ctx: OperationContext, plan: ReadPlan, steps: ReadStep[], cancellable: () => ReadStep[], done: (results: StepResult[]) => T | Promise<T>): T | Promise<T> {
  const results = ctx.reads.run({ steps, cancellable, cost: plan.cost, owner: ctx.principal.userId });
  return results instanceof Promise ? results.then(done) : done(results);
}

function rowOf(result: StepResult | undefined): DbRow | undefined {
  if (result?.kind !== 'row') throw new Error('a read step gave no row result');
  return result.row;
}

/**
 * GET of a collection (entity set or collection-valued navigation), one server-driven page. A page
 * ends at the page size or once its body reaches the response budget (limits.maxResponseBytes), and
 * then carries a next link, so a large page costs memory in proportion to the budget, not to the data.
 */
export function readCollection(ctx: OperationContext): ODataResponse | Promise<ODataResponse> {
  if (aggregates(ctx.options)) return readAggregated(ctx);
  return andThen(resolvePath(ctx.svc, ctx.svc.engine.db, ctx.path.steps, ctx.company?.id), (resolved) => readCollectionOf(ctx, resolved));
}

function readCollectionOf(ctx: OperationContext, resolved: ResolvedPath): ODataResponse | Promise<ODataResponse> {
  const format = negotiateJson(ctx.options.format, ctx.req.headers['accept']);
  const type = resolved.step.type;
  const { plan, page } = planReadRequest(ctx.read, 'collection', type, resolved.conditions, format);
  if (page === undefined) throw new Error('collection read without a page plan');
  const { query } = plan;
  const context = contextUrl(ctx.req.serviceRootUrl, ctx.contextPrefix, contextPath(ctx.path.steps, resolved.keys), contextSelect(query), false);
  const budget = pageBudget(ctx.responseBytes, context);
  const withPreference = (res: ODataResponse): ODataResponse => {
    if (page.preferenceApplied !== undefined) res.headers['Preference-Applied'] = page.preferenceApplied;
    return res;
  };
  const counted = plan.count !== undefined || plan.countInRows === true;
  if (!resolved.reachable) {
    const empty = plan.json !== undefined ? collectionJoinedResponse('', context, format, counted ? 0 : undefined, undefined) : collectionResponse(type, [], context, { format, links: ctx.links, select: query.read.select, expand: expandShapes(query.expand) }, counted ? 0 : undefined);
    return withPreference(empty);
  }
  // Rows are [entity JSON, key, version, sort values..., spliced members...] (planSplicedSelect).
  const column = (row: unknown[], alias: string): unknown => row[alias === type.key.name ? 1 : 3 + Number(alias.slice(SORT_PREFIX.length))];
  const mainStep = (p: ReadPlan): ReadStep => {
    if (p.pageText === true) return { kind: 'row', query: p.rows };
    if (p.json !== undefined) return { kind: 'page', query: p.rows, size: page.size, budget, ...(p.splice === undefined ? {} : { splice: p.splice }) };
    return { kind: 'rows', query: p.rows, size: page.size, budget };
  };
  const stepsOf = (p: ReadPlan): ReadStep[] => (p.count === undefined ? [mainStep(p)] : [mainStep(p), { kind: 'row', query: p.count }]);
  const cancellable = (): ReadStep[] => stepsOf(planReadRequest(ctx.read, 'collection', type, resolved.conditions, format, { cancellable: true }).plan);
  const pageResponse = (r: StepResult, count: number | undefined): ODataResponse => {
    if (r.kind !== 'page') throw new Error('a page read gave no page');
    const next = r.more && r.last !== undefined ? page.next(r.last, column, r.count) : undefined;
    return withPreference(collectionJoinedResponse(r.entities, context, format, count, next));
  };
  return runRead(ctx, plan, stepsOf(plan), cancellable, (results): ODataResponse | Promise<ODataResponse> => {
    const countRow = plan.countInRows === true ? rowOf(results[0]) : plan.count === undefined ? undefined : rowOf(results[1]);
    const count = counted ? Number(countRow?.[COUNT_ALIAS] ?? 0) : undefined;
    const first = results[0] as StepResult;
    if (plan.pageText === true) {
      // One row: the page's entities as JSON texts joined by commas, NULL for none (plan-read-request.ts); no next page can follow.
      const entities = (rowOf(first)?.[PAGE_ALIAS] as string | null | undefined) ?? '';
      if (entities.length <= budget || plan.streamRows === undefined) return withPreference(collectionJoinedResponse(entities, context, format, count, undefined));
      // Past the budget: the same page streamed, ended at the budget with a next link.
      const streamRows = plan.streamRows;
      const stream = (q: CompiledQuery): ReadStep[] => [{ kind: 'page', query: q, size: page.size, budget }];
      const again = (): ReadStep[] => stream(planReadRequest(ctx.read, 'collection', type, resolved.conditions, format, { cancellable: true }).plan.streamRows ?? streamRows);
      return runRead(ctx, plan, stream(streamRows), again, (r) => pageResponse(r[0] as StepResult, count));
    }
    if (first.kind === 'page') return pageResponse(first, count);
    if (first.kind !== 'rows') throw new Error('a page read gave no rows');
    const last = first.rows[first.rows.length - 1];
    const next = first.more && last !== undefined ? page.next(last, (row, alias) => row[alias], first.rows.length) : undefined;
    return withPreference(collectionResponse(type, first.rows, context, { format, links: ctx.links, select: query.read.select, expand: expandShapes(query.expand) }, count, next));
  });
}

/** GET `.../$count`: the number of entities as text/plain (URL Conventions §4.8); $filter applies. */
export function readCount(ctx: OperationContext): ODataResponse | Promise<ODataResponse> {
  if (aggregates(ctx.options)) return countAggregated(ctx);
  return andThen(resolvePath(ctx.svc, ctx.svc.engine.db, ctx.path.steps, ctx.company?.id), (resolved) => readCountOf(ctx, resolved));
}

function readCountOf(ctx: OperationContext, resolved: ResolvedPath): ODataResponse | Promise<ODataResponse> {
  const type = resolved.step.type;
  const plain = { metadata: 'minimal', ieee754Compatible: false } as const;
  const { plan } = planReadRequest(ctx.read, 'count', type, resolved.conditions, plain);
  const text = (n: number): ODataResponse => ({ status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: String(n) });
  if (!resolved.reachable || plan.count === undefined) return text(0);
  const cancellable = (): ReadStep[] => [{ kind: 'row', query: planReadRequest(ctx.read, 'count', type, resolved.conditions, plain, { cancellable: true }).plan.rows }];
  return runRead(ctx, plan, [{ kind: 'row', query: plan.count }], cancellable, (r) => text(Number(rowOf(r[0])?.[COUNT_ALIAS] ?? 0)));
}

/**
 * GET of one entity (by key, or through a single-valued navigation); $select and $expand apply. An
 * entity whose body would pass the response budget (its expansions) is refused before it is sent.
 */
export function readEntity(ctx: OperationContext): ODataResponse | Promise<ODataResponse> {
  return andThen(resolvePath(ctx.svc, ctx.svc.engine.db, ctx.path.steps, ctx.company?.id), (resolved) => readEntityOf(ctx, resolved));
}

function readEntityOf(ctx: OperationContext, resolved: ResolvedPath): ODataResponse | Promise<ODataResponse> {
  const format = negotiateJson(ctx.options.format, ctx.req.headers['accept']);
  const type = resolved.step.type;
  const { plan } = planReadRequest(ctx.read, 'entity', type, resolved.conditions, format);
  const { query } = plan;
  const respond = (row: DbRow | undefined): ODataResponse => {
    if (row === undefined) throw recordNotFound(type, resolved.conditions);
    const keys = [...resolved.keys];
    if (resolved.step.key === undefined) keys.push(row[type.key.name] as StoredValue);
    const context = contextUrl(ctx.req.serviceRootUrl, ctx.contextPrefix, contextPath(ctx.path.steps, keys), contextSelect(query), true);
    if (plan.json !== undefined) {
      const text = row[JSON_ALIAS] as string;
      if (text.length > pageBudget(ctx.responseBytes, context)) throw responseTooLarge(ctx);
      return entityTextResponse(200, text, rowEtag(row), context, format);
    }
    return entityResponse(200, type, row, context, { format, links: ctx.links, select: query.read.select, expand: expandShapes(query.expand) });
  };
  if (!resolved.reachable) return respond(undefined);
  const cancellable = (): ReadStep[] => [{ kind: 'row', query: planReadRequest(ctx.read, 'entity', type, resolved.conditions, format, { cancellable: true }).plan.rows }];
  return runRead(ctx, plan, [{ kind: 'row', query: plan.rows }], cancellable, (r) => respond(rowOf(r[0])));
}

/** 400: the one entity asked for, with its expansions, is larger than the response budget. */
function responseTooLarge(ctx: OperationContext): QueryLimitError {
  const max = ctx.responseBytes;
  const shared = max < ctx.svc.model.service.maxResponseBytes ? ', shared by the requests of a batch' : '';
  return new QueryLimitError(`The response would be larger than ${max} bytes (${limitSetting('maxResponseBytes')}${shared}); expand less, or put $select or $top inside the $expand.`, '$expand');
}

/** GET of one structural property (`.../number`), or its raw value (`.../number/$value`). */
export function readProperty(ctx: OperationContext): ODataResponse | Promise<ODataResponse> {
  const target = ctx.path.target;
  if (target.kind !== 'property') throw new Error('readProperty on a non-property target');
  return andThen(resolvePath(ctx.svc, ctx.svc.engine.db, ctx.path.steps, ctx.company?.id), (resolved) => readPropertyOf(ctx, resolved));
}

function readPropertyOf(ctx: OperationContext, resolved: ResolvedPath): ODataResponse | Promise<ODataResponse> {
  const target = ctx.path.target;
  if (target.kind !== 'property') throw new Error('readProperty on a non-property target');
  const type = resolved.step.type;
  const read = resolved.reachable ? ctx.svc.engine.db.get(compile(planSelect({ type, companyId: ctx.company?.id, conditions: resolved.conditions, limit: 1 }), ctx.svc.engine.dialect)) : undefined;
  return andThen(read, (row) => propertyResponse(ctx, target, type, resolved, row));
}

function propertyResponse(ctx: OperationContext, target: Extract<OperationContext['path']['target'], { kind: 'property' }>, type: EntityType, resolved: ResolvedPath, row: DbRow | undefined): ODataResponse {
  if (row === undefined) throw recordNotFound(type, resolved.conditions);
  const value = row[target.property.name];
  if (value === null || value === undefined) return noContent();
  if (target.value) {
    const json = storedToJson(value, target.property.type, { ieee754Compatible: true });
    return { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: String(json) };
  }
  const format = negotiateJson(ctx.options.format, ctx.req.headers['accept']);
  const key = row[type.key.name] as StoredValue;
  const entityPath = `${ctx.contextPrefix}${type.entitySet}(${keyLiteral(type, key)})`;
  return jsonResponse(
    200,
    { '@odata.context': `${ctx.req.serviceRootUrl}/$metadata#${entityPath}/${target.property.name}`, value: storedToJson(value, target.property.type, format) },
    format,
    { 'Content-Type': jsonContentType(format) },
  );
}
