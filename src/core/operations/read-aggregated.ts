/**
 * GET of a collection with an aggregating `$apply` (Data Aggregation §3): one server-driven page of
 * aggregated instances, with `@odata.count` and `@odata.nextLink` as for entities; and `/$count` of them.
 * The statements run through the read executor like every read (db/sqlite/sqlite-read-executor.ts): on the event
 * loop, or in a read thread with a deadline when the cost model says so.
 */
import { pageBudget } from './page-budget.js';
import type { ReadStep, StepResult } from '../../db/read-steps.js';
import { aggregatedContextSelect, aggregatedToJson } from '../../serialize/aggregated-json.js';
import { contextPath, contextUrl } from '../../serialize/context-url.js';
import { planAggregatedRequest, type AggregatedReadPlan } from '../../query/plan-aggregated-request.js';
import { COUNT_ALIAS } from '../../query/plan-select.js';
import { BRANCH_COLUMN } from '../../query/plan-apply.js';
import { negotiateJson } from '../format.js';
import type { OperationContext } from '../operation-context.js';
import type { ODataResponse } from '../request.js';
import { resolvePath, type ResolvedPath } from '../../store/resolve-path.js';
import { andThen } from '../../util/maybe-promise.js';
import { countValue, jsonResponse } from '../responses.js';

const PLAIN = { metadata: 'minimal', ieee754Compatible: false } as const;

function run<T>(ctx: OperationContext, plan: AggregatedReadPlan, steps: (p: AggregatedReadPlan) => ReadStep[], again: () => AggregatedReadPlan, done: (results: StepResult[]) => T | Promise<T>): T | Promise<T> {
  const results = ctx.reads.run({ steps: steps(plan), cancellable: () => steps(again()), cost: plan.cost, owner: ctx.principal.userId });
  return results instanceof Promise ? results.then(done) : done(results);
}

function countOf(result: StepResult | undefined): number {
  if (result?.kind !== 'row') throw new Error('a count step gave no row');
  return Number(result.row?.[COUNT_ALIAS] ?? 0);
}

/** GET of a collection whose `$apply` groups or aggregates. */
export function readAggregated(ctx: OperationContext): ODataResponse | Promise<ODataResponse> {
  return andThen(resolvePath(ctx.svc, ctx.svc.engine.db, ctx.path.steps, ctx.company?.id), (resolved) => readAggregatedOf(ctx, resolved));
}

function readAggregatedOf(ctx: OperationContext, resolved: ResolvedPath): ODataResponse | Promise<ODataResponse> {
  const format = negotiateJson(ctx.options.format, ctx.req.headers['accept']);
  const type = resolved.step.type;
  const plan = planAggregatedRequest(ctx.read, 'collection', type, resolved.conditions, format);
  const { aggregation, page } = plan;
  if (page === undefined) throw new Error('aggregated collection read without a page');
  // Instances of several shapes (concat) are described as any structure (Data Aggregation §3.3.1's example).
  const select = aggregation.kind === 'concat' ? ['@Core.AnyStructure'] : aggregatedContextSelect(aggregation.segments[0] ?? []);
  const context = contextUrl(ctx.req.serviceRootUrl, ctx.contextPrefix, contextPath(ctx.path.steps, resolved.keys), select, false);
  const budget = pageBudget(ctx.responseBytes, context);
  const respond = (rows: readonly Record<string, unknown>[], count: number | undefined, nextLink: string | undefined): ODataResponse => {
    const body: Record<string, unknown> = {};
    if (format.metadata !== 'none') body['@odata.context'] = context;
    if (count !== undefined) body['@odata.count'] = countValue(count, format);
    body['value'] = rows.map((row) => aggregatedToJson(aggregation.segments[Number(row[BRANCH_COLUMN] ?? 0)] ?? [], row, format));
    if (nextLink !== undefined) body['@odata.nextLink'] = nextLink;
    const res = jsonResponse(200, body, format);
    if (page.preferenceApplied !== undefined) res.headers['Preference-Applied'] = page.preferenceApplied;
    return res;
  };
  if (!resolved.reachable) return respond([], plan.count === undefined ? undefined : 0, undefined);
  const steps = (p: AggregatedReadPlan): ReadStep[] => {
    if (p.rows === undefined) throw new Error('aggregated collection read without rows');
    const rows: ReadStep = { kind: 'rows', query: p.rows, size: page.size, budget };
    return p.count === undefined || p.countInRows === true ? [rows] : [rows, { kind: 'row', query: p.count }];
  };
  const again = (): AggregatedReadPlan => planAggregatedRequest(ctx.read, 'collection', type, resolved.conditions, format, { cancellable: true });
  return run(ctx, plan, steps, again, (results): ODataResponse | Promise<ODataResponse> => {
    const first = results[0];
    if (first?.kind !== 'rows') throw new Error('an aggregated page gave no rows');
    const last = first.rows[first.rows.length - 1];
    const next = first.more && last !== undefined ? page.next(last, first.rows.length) : undefined;
    if (plan.count === undefined) return respond(first.rows, undefined, next);
    if (plan.countInRows !== true) return respond(first.rows, countOf(results[1]), next);
    const carried = first.rows[0]?.[COUNT_ALIAS];
    if (carried !== undefined) return respond(first.rows, Number(carried), next);
    // An empty page has no row to carry the count: it is read on its own.
    const countSteps = (p: AggregatedReadPlan): ReadStep[] => {
      if (p.count === undefined) throw new Error('aggregated $count=true without a count');
      return [{ kind: 'row', query: p.count }];
    };
    return run(ctx, plan, countSteps, again, (r) => respond(first.rows, countOf(r[0]), next));
  });
}

/** GET `.../$count?$apply=...`: the number of aggregated instances (URL Conventions §4.8). */
export function countAggregated(ctx: OperationContext): ODataResponse | Promise<ODataResponse> {
  return andThen(resolvePath(ctx.svc, ctx.svc.engine.db, ctx.path.steps, ctx.company?.id), (resolved) => countAggregatedOf(ctx, resolved));
}

function countAggregatedOf(ctx: OperationContext, resolved: ResolvedPath): ODataResponse | Promise<ODataResponse> {
  const type = resolved.step.type;
  const plan = planAggregatedRequest(ctx.read, 'count', type, resolved.conditions, PLAIN);
  const text = (n: number): ODataResponse => ({ status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: String(n) });
  if (!resolved.reachable) return text(0);
  const steps = (p: AggregatedReadPlan): ReadStep[] => {
    if (p.count === undefined) throw new Error('aggregated count without a count');
    return [{ kind: 'row', query: p.count }];
  };
  const again = (): AggregatedReadPlan => planAggregatedRequest(ctx.read, 'count', type, resolved.conditions, PLAIN, { cancellable: true });
  return run(ctx, plan, steps, again, (results) => text(countOf(results[0])));
}
