/**
 * GET on entity sets, navigations, single entities, `$count` and single properties.
 */
import { compile } from '../../sql/compile.js';
import { sqliteDialect } from '../../sql/sqlite-dialect.js';
import type { StoredValue } from '../../edm/values.js';
import { storedToJson } from '../../edm/values.js';
import { planRead } from '../../query/plan-read.js';
import { contextPath, contextUrl, keyLiteral } from '../../serialize/context-url.js';
import { negotiateJson, jsonContentType } from '../format.js';
import type { OperationContext } from '../operation-context.js';
import type { ODataResponse } from '../request.js';
import { collectionResponse, entityResponse, jsonResponse, noContent } from '../responses.js';
import { recordNotFound, resolvePath } from '../resolve-path.js';
import { planQuery } from '../../query/plan-query.js';

/** GET of a collection (entity set or collection-valued navigation). */
export function readCollection(ctx: OperationContext): ODataResponse {
  const format = negotiateJson(ctx.options.format, ctx.req.headers['accept']);
  const resolved = resolvePath(ctx.svc, ctx.path.steps, ctx.company?.id);
  const type = resolved.step.type;
  const query = planQuery(ctx, type);
  const rows = resolved.reachable
    ? ctx.svc.db.all(compile(planRead({ type, companyId: ctx.company?.id, conditions: resolved.conditions, ...query.read }), sqliteDialect))
    : [];
  const count = query.count && resolved.reachable ? countRows(ctx, resolved.conditions, query.read.where) : query.count ? 0 : undefined;
  const context = contextUrl(ctx.req.serviceRootUrl, ctx.contextPrefix, contextPath(ctx.path.steps, resolved.keys), query.selectList, false);
  return collectionResponse(type, rows, context, { format, links: ctx.links, select: query.read.select }, count);
}

function countRows(ctx: OperationContext, conditions: Parameters<typeof planRead>[0]['conditions'], where: Parameters<typeof planRead>[0]['where']): number {
  const type = ctx.path.steps[ctx.path.steps.length - 1]?.type;
  if (type === undefined) return 0;
  const plan = planRead({ type, companyId: ctx.company?.id, conditions, where });
  const counted = { ...plan, columns: [{ expr: { kind: 'call' as const, name: 'count', args: [{ kind: 'star' as const }] }, alias: 'n' }], orderBy: [] };
  const row = ctx.svc.db.get(compile(counted, sqliteDialect));
  return Number(row?.['n'] ?? 0);
}

/** GET `.../$count`: the number of entities as text/plain (URL Conventions §4.8). */
export function readCount(ctx: OperationContext): ODataResponse {
  const resolved = resolvePath(ctx.svc, ctx.path.steps, ctx.company?.id);
  const query = planQuery(ctx, resolved.step.type);
  const n = resolved.reachable ? countRows(ctx, resolved.conditions, query.read.where) : 0;
  return { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: String(n) };
}

/** GET of one entity (by key, or through a single-valued navigation). */
export function readEntity(ctx: OperationContext): ODataResponse {
  const format = negotiateJson(ctx.options.format, ctx.req.headers['accept']);
  const resolved = resolvePath(ctx.svc, ctx.path.steps, ctx.company?.id);
  const type = resolved.step.type;
  const query = planQuery(ctx, type);
  const row = resolved.reachable
    ? ctx.svc.db.get(compile(planRead({ type, companyId: ctx.company?.id, conditions: resolved.conditions, select: query.read.select, limit: 1 }), sqliteDialect))
    : undefined;
  if (row === undefined) throw recordNotFound(type, resolved.conditions);
  const keys = [...resolved.keys];
  if (resolved.step.key === undefined) keys.push(row[type.key.name] as StoredValue);
  const context = contextUrl(ctx.req.serviceRootUrl, ctx.contextPrefix, contextPath(ctx.path.steps, keys), query.selectList, true);
  return entityResponse(200, type, row, context, { format, links: ctx.links, select: query.read.select });
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
