/**
 * GET of a collection with an aggregating `$apply` (Data Aggregation §3): one server-driven page of
 * aggregated instances, with `@odata.count` and `@odata.nextLink` as for entities; and `/$count` of them.
 */
import { aggregatedContextSelect, aggregatedToJson } from '../../serialize/aggregated-json.js';
import { contextPath, contextUrl } from '../../serialize/context-url.js';
import { planAggregatedRequest } from '../../query/aggregated-plans.js';
import { BRANCH_COLUMN } from '../../query/plan-apply.js';
import { negotiateJson } from '../format.js';
import type { OperationContext } from '../operation-context.js';
import type { ODataResponse } from '../request.js';
import { resolvePath } from '../resolve-path.js';
import { countValue, jsonResponse } from '../responses.js';

/** GET of a collection whose `$apply` groups or aggregates. */
export function readAggregated(ctx: OperationContext): ODataResponse {
  const format = negotiateJson(ctx.options.format, ctx.req.headers['accept']);
  const resolved = resolvePath(ctx.svc, ctx.path.steps, ctx.company?.id);
  const plan = planAggregatedRequest(ctx, 'collection', resolved.step.type, resolved.conditions, format);
  const { aggregation, page } = plan;
  if (plan.rows === undefined || page === undefined) throw new Error('aggregated collection read without a page');
  const rows = resolved.reachable ? ctx.svc.db.all(plan.rows) : [];
  let nextLink: string | undefined;
  if (rows.length > page.size) {
    rows.length = page.size;
    nextLink = page.next(rows[page.size - 1] as Record<string, unknown>);
  }
  const body: Record<string, unknown> = {};
  if (format.metadata !== 'none') {
    // Instances of several shapes (concat) are described as any structure (Data Aggregation §3.3.1's example).
    const select = aggregation.kind === 'concat' ? ['@Core.AnyStructure'] : aggregatedContextSelect(aggregation.segments[0] ?? []);
    body['@odata.context'] = contextUrl(ctx.req.serviceRootUrl, ctx.contextPrefix, contextPath(ctx.path.steps, resolved.keys), select, false);
  }
  if (plan.count !== undefined) body['@odata.count'] = countValue(resolved.reachable ? Number(ctx.svc.db.get(plan.count)?.['n'] ?? 0) : 0, format);
  body['value'] = rows.map((row) => aggregatedToJson(aggregation.segments[Number(row[BRANCH_COLUMN] ?? 0)] ?? [], row, format));
  if (nextLink !== undefined) body['@odata.nextLink'] = nextLink;
  const res = jsonResponse(200, body, format);
  if (page.preferenceApplied !== undefined) res.headers['Preference-Applied'] = page.preferenceApplied;
  return res;
}

/** GET `.../$count?$apply=...`: the number of aggregated instances (URL Conventions §4.8). */
export function countAggregated(ctx: OperationContext): ODataResponse {
  const resolved = resolvePath(ctx.svc, ctx.path.steps, ctx.company?.id);
  const plan = planAggregatedRequest(ctx, 'count', resolved.step.type, resolved.conditions, { metadata: 'minimal', ieee754Compatible: false });
  const n = resolved.reachable && plan.count !== undefined ? Number(ctx.svc.db.get(plan.count)?.['n'] ?? 0) : 0;
  return { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: String(n) };
}
