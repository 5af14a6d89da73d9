/**
 * The statements of an aggregated read (`$apply` with groupby/aggregate): the page of result
 * instances and their count, cached by request shape like every read (plan-cache.ts), and
 * server-driven paging over them (conventions §4): the sort ends with the grouping columns, which
 * identify an instance, so the `$skiptoken` of the next link holds the last row's sort and grouping
 * values and the next page starts strictly after it. The instances of a `concat` have no common
 * identity: their next link carries the offset of the next row instead.
 */
import type { EntityType } from '../edm/model.js';
import type { JsonFormat } from '../core/format.js';
import type { OperationContext } from '../core/operation-context.js';
import { compile, type CompiledQuery } from '../sql/compile.js';
import { sqliteDialect } from '../sql/sqlite-dialect.js';
import type { SqlValue } from '../sql/nodes.js';
import type { StoredValue } from '../edm/values.js';
import { PlanCache, type PlannedShape } from './plan-cache.js';
import { nextLinkUrl, pageSizeOf, SORT_PREFIX } from './plan-page.js';
import { aggregatedSelects, planAggregation, type AggregatedPageWindow, type PlannedAggregation } from './plan-apply.js';
import type { PathCondition } from './plan-read.js';
import { exprContext } from './plan-query.js';
import { shapeKey } from './read-plans.js';
import { decodeSkiptoken, encodeSkiptoken, type TokenValue } from './skiptoken.js';

/** What an aggregated read runs. */
export interface AggregatedReadPlan {
  readonly aggregation: PlannedAggregation;
  /** The page (collections), or undefined for `/$count`. */
  readonly rows?: CompiledQuery;
  /** `count(*)` of the result instances, for `$count=true` and `/$count`. */
  readonly count?: CompiledQuery;
  readonly page?: AggregatedPage;
}

/** Paging of an aggregated collection. */
export interface AggregatedPage {
  /** The most rows a page holds; the read fetches one more when a next page is possible. */
  readonly size: number;
  readonly preferenceApplied?: string;
  /** The next link after a full page whose last row is `last` (a row read by `rows`), when rows follow it. */
  next(last: Record<string, unknown>): string | undefined;
}

const caches = new WeakMap<object, PlanCache<PlannedAggregation>>();

function cacheOf(ctx: OperationContext): PlanCache<PlannedAggregation> {
  let cache = caches.get(ctx.svc);
  if (cache === undefined) caches.set(ctx.svc, (cache = new PlanCache<PlannedAggregation>()));
  return cache;
}

/** The plan of an aggregated read of `type` restricted by `conditions`: its page, or only its count. */
export function planAggregatedRequest(ctx: OperationContext, kind: 'collection' | 'count', type: EntityType, conditions: readonly PathCondition[], format: JsonFormat): AggregatedReadPlan {
  const companyId = ctx.company?.id;
  const options = ctx.options;
  const { size, preferenceApplied } = pageSizeOf(ctx);
  const top = options.top;
  const final = top !== undefined && top <= size;
  const values: SqlValue[] = [new Date().toISOString(), companyId ?? null, ...conditions.map((c) => c.value)];
  const build = (v: readonly SqlValue[]): PlannedShape<PlannedAggregation> => {
    const aggregation = planAggregation({ model: ctx.svc.model, type, options, ctx: exprContext(v[0] as string) });
    const company = companyId === undefined ? undefined : (v[1] as string);
    const conds = conditions.map((c, i) => ({ property: c.property, value: v[i + 2] as StoredValue }));
    // A $skiptoken makes the request uncached (shapeKey), so this runs for every continuation page.
    const token = kind !== 'collection' || options.skiptoken === undefined ? undefined : options.skiptoken;
    const limit = final ? top : size + 1;
    let window: AggregatedPageWindow;
    if (aggregation.kind === 'concat') {
      window = { limit, offset: token === undefined ? options.skip : Number(decodeSkiptoken(token, 1)[0]) };
    } else {
      const after = token === undefined ? undefined : decodeSkiptoken(token, aggregation.sortCount + aggregation.keys.length, true);
      window = { limit, offset: after === undefined ? options.skip : undefined, after };
    }
    const { rows, count } = aggregatedSelects(aggregation, company, conds, window);
    const statements: CompiledQuery[] = [];
    if (kind === 'collection') statements.push(compile(rows, sqliteDialect));
    if (kind === 'count' || options.count === true) statements.push(compile(count, sqliteDialect));
    return { value: aggregation, statements };
  };
  const key = shapeKey(ctx, `aggregated ${kind}`, type, conditions, format);
  const planned = key === undefined ? build(values) : cacheOf(ctx).get(key, values, build);
  const aggregation = planned.value;
  if (kind === 'count') return { aggregation, count: planned.statements[0] };
  const [rows, count] = planned.statements;
  const offset = aggregation.kind !== 'concat' ? 0 : options.skiptoken === undefined ? (options.skip ?? 0) : Number(decodeSkiptoken(options.skiptoken, 1)[0]);
  const page: AggregatedPage = {
    size,
    preferenceApplied,
    next(last) {
      const remaining = top === undefined ? undefined : top - size;
      if (remaining !== undefined && remaining <= 0) return undefined;
      if (aggregation.kind === 'concat') return nextLinkUrl(ctx, encodeSkiptoken([offset + size]), remaining);
      if (aggregation.keys.length === 0) return undefined;
      const tokenValues: TokenValue[] = [];
      for (let i = 0; i < aggregation.sortCount; i++) tokenValues.push((last[`${SORT_PREFIX}${i}`] ?? null) as TokenValue);
      for (const k of aggregation.keys) tokenValues.push((last[k.column] ?? null) as TokenValue);
      return nextLinkUrl(ctx, encodeSkiptoken(tokenValues), remaining);
    },
  };
  return { aggregation, rows, count, page };
}
