/**
 * GET on entity sets, navigations, single entities, `$count` and single properties.
 */
import { compile } from '../../sql/compile.js';
import { sqliteDialect } from '../../sql/sqlite-dialect.js';
import type { EntityType } from '../../edm/model.js';
import type { StoredValue } from '../../edm/values.js';
import { storedToJson } from '../../edm/values.js';
import { JSON_ALIAS, planRead } from '../../query/plan-read.js';
import type { PlannedQuery } from '../../query/plan-query.js';
import { PAGE_ALIAS, planReadRequest } from '../../query/read-plans.js';
import type { ExpandPlan } from '../../query/plan-expand.js';
import { contextPath, contextUrl, keyLiteral } from '../../serialize/context-url.js';
import { rowEtag, type ExpandShape } from '../../serialize/entity-json.js';
import { negotiateJson, jsonContentType } from '../format.js';
import type { OperationContext } from '../operation-context.js';
import type { ODataResponse } from '../request.js';
import { collectionArrayTextResponse, collectionResponse, collectionTextResponse, entityResponse, entityTextResponse, jsonResponse, noContent } from '../responses.js';
import { recordNotFound, resolvePath } from '../resolve-path.js';
import { SORT_PREFIX } from '../../query/plan-page.js';
import { aggregates } from '../../query/plan-apply.js';
import { countAggregated, readAggregated } from './read-aggregated.js';

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

/** GET of a collection (entity set or collection-valued navigation), one server-driven page. */
export function readCollection(ctx: OperationContext): ODataResponse {
  if (aggregates(ctx.options)) return readAggregated(ctx);
  const format = negotiateJson(ctx.options.format, ctx.req.headers['accept']);
  const resolved = resolvePath(ctx.svc, ctx.path.steps, ctx.company?.id);
  const type = resolved.step.type;
  const { plan, page } = planReadRequest(ctx, 'collection', type, resolved.conditions, format);
  if (page === undefined) throw new Error('collection read without a page plan');
  const { query } = plan;
  const count = plan.count === undefined ? undefined : resolved.reachable ? Number(ctx.svc.db.get(plan.count)?.['n'] ?? 0) : 0;
  const context = contextUrl(ctx.req.serviceRootUrl, ctx.contextPrefix, contextPath(ctx.path.steps, resolved.keys), contextSelect(query), false);
  let res: ODataResponse;
  if (plan.pageText) {
    // One row: the page's entities as one JSON array text (read-plans.ts); no next page can follow.
    const array = resolved.reachable ? (ctx.svc.db.get(plan.rows)?.[PAGE_ALIAS] as string | undefined) : undefined;
    res = collectionArrayTextResponse(array ?? '[]', context, format, count);
  } else if (plan.json !== undefined) {
    // Rows are [entity JSON, key, version, sort values...] (planRead's `json`), streamed into the body.
    const column = (row: unknown[], alias: string): unknown => row[alias === type.key.name ? 1 : 3 + Number(alias.slice(SORT_PREFIX.length))];
    let last: unknown[] | undefined;
    let more = false;
    const rows = resolved.reachable ? ctx.svc.db.iterateRows(plan.rows) : [];
    const entities = function* (): Generator<string> {
      let n = 0;
      for (const row of rows) {
        if (n === page.size) {
          more = true;
          return; // the extra row only says that a next page exists (returning ends the statement)
        }
        yield row[0] as string;
        last = row;
        n++;
      }
    };
    res = collectionTextResponse(entities(), context, format, count, () => (more && last !== undefined ? page.next(last, column) : undefined));
  } else {
    const rows = resolved.reachable ? ctx.svc.db.all(plan.rows) : [];
    const { rows: pageRows, nextLink } = page.finish(rows, (row, alias) => row[alias]);
    res = collectionResponse(type, pageRows, context, { format, links: ctx.links, select: query.read.select, expand: expandShapes(query.expand) }, count, nextLink);
  }
  if (page.preferenceApplied !== undefined) res.headers['Preference-Applied'] = page.preferenceApplied;
  return res;
}

/** GET `.../$count`: the number of entities as text/plain (URL Conventions §4.8); $filter applies. */
export function readCount(ctx: OperationContext): ODataResponse {
  if (aggregates(ctx.options)) return countAggregated(ctx);
  const resolved = resolvePath(ctx.svc, ctx.path.steps, ctx.company?.id);
  const { plan } = planReadRequest(ctx, 'count', resolved.step.type, resolved.conditions, { metadata: 'minimal', ieee754Compatible: false });
  const n = resolved.reachable && plan.count !== undefined ? Number(ctx.svc.db.get(plan.count)?.['n'] ?? 0) : 0;
  return { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: String(n) };
}

/** GET of one entity (by key, or through a single-valued navigation); $select and $expand apply. */
export function readEntity(ctx: OperationContext): ODataResponse {
  const format = negotiateJson(ctx.options.format, ctx.req.headers['accept']);
  const resolved = resolvePath(ctx.svc, ctx.path.steps, ctx.company?.id);
  const type = resolved.step.type;
  const { plan } = planReadRequest(ctx, 'entity', type, resolved.conditions, format);
  const { query } = plan;
  const row = resolved.reachable ? ctx.svc.db.get(plan.rows) : undefined;
  if (row === undefined) throw recordNotFound(type, resolved.conditions);
  const keys = [...resolved.keys];
  if (resolved.step.key === undefined) keys.push(row[type.key.name] as StoredValue);
  const context = contextUrl(ctx.req.serviceRootUrl, ctx.contextPrefix, contextPath(ctx.path.steps, keys), contextSelect(query), true);
  if (plan.json !== undefined) {
    const text = row[JSON_ALIAS] as string;
    return entityTextResponse(200, text, rowEtag(row), context, format);
  }
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
