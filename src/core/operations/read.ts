/**
 * GET on entity sets, navigations, single entities, `$count` and single properties.
 */
import { compile } from '../../sql/compile.js';
import { sqliteDialect } from '../../sql/sqlite-dialect.js';
import type { EntityType } from '../../edm/model.js';
import type { StoredValue } from '../../edm/values.js';
import { storedToJson } from '../../edm/values.js';
import { planRead, type PathCondition, type ReadPlanInput } from '../../query/plan-read.js';
import { planQuery, type PlannedQuery } from '../../query/plan-query.js';
import type { ExpandPlan } from '../../query/plan-expand.js';
import { contextPath, contextUrl, keyLiteral } from '../../serialize/context-url.js';
import type { ExpandShape } from '../../serialize/entity-json.js';
import { negotiateJson, jsonContentType } from '../format.js';
import type { OperationContext } from '../operation-context.js';
import type { ODataResponse } from '../request.js';
import { collectionResponse, entityResponse, jsonResponse, noContent } from '../responses.js';
import { recordNotFound, resolvePath } from '../resolve-path.js';
import { planPage, type PagePlan } from '../../query/plan-page.js';

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
  const nested = (plans: readonly ExpandPlan[]): string[] =>
    plans.flatMap((p) => {
      const inner = [...(p.selectList ?? []), ...nested(p.expand)];
      return p.selectList !== undefined || p.expand.length > 0 ? [`${p.nav.name}(${inner.join(',')})`] : q.selectList !== undefined ? [p.nav.name] : [];
    });
  const parts = [...(q.selectList ?? []), ...nested(q.expand)];
  return parts.length === 0 ? undefined : parts;
}

function queryFor(ctx: OperationContext, type: EntityType): PlannedQuery {
  return planQuery({ model: ctx.svc.model, type, options: ctx.options, aliases: ctx.options.aliases, now: new Date().toISOString(), depth: 0 });
}

function countRows(ctx: OperationContext, type: EntityType, conditions: readonly PathCondition[], where: ReadPlanInput['where']): number {
  const plan = planRead({ type, companyId: ctx.company?.id, conditions, where });
  const counted = { ...plan, columns: [{ expr: { kind: 'call' as const, name: 'count', args: [{ kind: 'star' as const }] }, alias: 'n' }], orderBy: [] };
  const row = ctx.svc.db.get(compile(counted, sqliteDialect));
  return Number(row?.['n'] ?? 0);
}

/** GET of a collection (entity set or collection-valued navigation), one server-driven page. */
export function readCollection(ctx: OperationContext): ODataResponse {
  const format = negotiateJson(ctx.options.format, ctx.req.headers['accept']);
  const resolved = resolvePath(ctx.svc, ctx.path.steps, ctx.company?.id);
  const type = resolved.step.type;
  const query = queryFor(ctx, type);
  const page: PagePlan = planPage(ctx, type, query);
  const rows = resolved.reachable
    ? ctx.svc.db.all(compile(planRead({ type, companyId: ctx.company?.id, conditions: resolved.conditions, ...query.read, ...page.read }), sqliteDialect))
    : [];
  const count = query.count ? (resolved.reachable ? countRows(ctx, type, resolved.conditions, query.read.where) : 0) : undefined;
  const { rows: pageRows, nextLink } = page.finish(rows);
  const context = contextUrl(ctx.req.serviceRootUrl, ctx.contextPrefix, contextPath(ctx.path.steps, resolved.keys), contextSelect(query), false);
  const res = collectionResponse(type, pageRows, context, { format, links: ctx.links, select: query.read.select, expand: expandShapes(query.expand) }, count, nextLink);
  if (page.preferenceApplied !== undefined) res.headers['Preference-Applied'] = page.preferenceApplied;
  return res;
}

/** GET `.../$count`: the number of entities as text/plain (URL Conventions §4.8); $filter applies. */
export function readCount(ctx: OperationContext): ODataResponse {
  const resolved = resolvePath(ctx.svc, ctx.path.steps, ctx.company?.id);
  const type = resolved.step.type;
  const query = queryFor(ctx, type);
  const n = resolved.reachable ? countRows(ctx, type, resolved.conditions, query.read.where) : 0;
  return { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: String(n) };
}

/** GET of one entity (by key, or through a single-valued navigation); $select and $expand apply. */
export function readEntity(ctx: OperationContext): ODataResponse {
  const format = negotiateJson(ctx.options.format, ctx.req.headers['accept']);
  const resolved = resolvePath(ctx.svc, ctx.path.steps, ctx.company?.id);
  const type = resolved.step.type;
  const query = queryFor(ctx, type);
  const row = resolved.reachable
    ? ctx.svc.db.get(compile(planRead({ type, companyId: ctx.company?.id, conditions: resolved.conditions, select: query.read.select, extraColumns: query.read.extraColumns, limit: 1 }), sqliteDialect))
    : undefined;
  if (row === undefined) throw recordNotFound(type, resolved.conditions);
  const keys = [...resolved.keys];
  if (resolved.step.key === undefined) keys.push(row[type.key.name] as StoredValue);
  const context = contextUrl(ctx.req.serviceRootUrl, ctx.contextPrefix, contextPath(ctx.path.steps, keys), contextSelect(query), true);
  return entityResponse(200, type, row, context, { format, links: ctx.links, select: query.read.select, expand: expandShapes(query.expand) });
}

/** GET of one structural property (`.../number`), or its raw value (`.../number/$value`). */
export function readProperty(ctx: OperationContext): ODataResponse {
  const target = ctx.path.target;
  if (target.kind !== 'property') throw new Error('readProperty on a non-property target');
  const resolved = resolvePath(ctx.svc, ctx.path.steps, ctx.company?.id);
  const type = resolved.step.type;
  const row = resolved.reachable
    ? ctx.svc.db.get(compile(planRead({ type, companyId: ctx.company?.id, conditions: resolved.conditions, limit: 1 }), sqliteDialect))
    : undefined;
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
