/**
 * The statements of an aggregated read (`$apply` with groupby/aggregate): the page of result
 * instances and their count, cached by request shape like every read (plan-cache.ts), and
 * server-driven paging over them (conventions §4): the sort ends with the grouping columns, which
 * identify an instance, so the `$skiptoken` of the next link holds the last row's sort and grouping
 * values and the next page starts strictly after it. The instances of a `concat` have no common
 * identity: their next link carries the offset of the next row instead.
 */
import { isoNow } from '../util/iso-now.js';
import type { EntityType } from '../edm/model.js';
import type { JsonFormat } from '../core/format.js';
import type { ReadInput } from './read-input.js';
import { compile, type CompiledQuery } from '../sql/compile.js';
import type { SelectNode, SqlValue } from '../sql/nodes.js';
import type { StoredValue } from '../edm/values.js';
import { PlanCache, type PlannedShape } from './plan-cache.js';
import { nextLinkUrl, SORT_PREFIX } from './plan-page.js';
import { aggregatedSelects, planAggregation, type AggregatedPageWindow, type PlannedAggregation } from './plan-apply.js';
import { COUNT_ALIAS, type PathCondition } from './plan-select.js';
import { exprContext } from './plan-query.js';
import { shapeKey } from './plan-read-request.js';
import { decodeSkiptoken, encodeSkiptoken, type TokenValue } from './skiptoken.js';
import type { ReadCost } from './read-cost.js';

/** What an aggregated read runs. */
export interface AggregatedReadPlan {
  readonly aggregation: PlannedAggregation;
  /** The page (collections), or undefined for `/$count`. */
  readonly rows?: CompiledQuery;
  /** `count(*)` of the result instances, for `$count=true` and `/$count`. */
  readonly count?: CompiledQuery;
  /**
   * With `$count=true`: every row of `rows` also carries the count (column COUNT_ALIAS; the other
   * columns' names are generated, c0, u0..., so no alias of the URL can be it), so a page
   * and its count are one statement (one snapshot without a transaction: one round trip on
   * PostgreSQL instead of four). `count` is then run only for an empty page, which has no row to carry it.
   */
  readonly countInRows?: true;
  readonly page?: AggregatedPage;
  /** What the read may cost (read-cost.ts): the grouping reads the set once and writes at most a group per row. */
  readonly cost: ReadCost;
}

/** Paging of an aggregated collection. */
export interface AggregatedPage {
  /** The most rows a page holds; the read fetches one more when a next page is possible. */
  readonly size: number;
  readonly preferenceApplied?: string;
  /** The next link after a page of `returned` rows whose last is `last` (a row read by `rows`), when rows follow it. */
  next(last: Record<string, unknown>, returned: number): string | undefined;
}

interface CachedAggregation {
  readonly aggregation: PlannedAggregation;
  readonly cost: ReadCost;
}

const caches = new WeakMap<object, PlanCache<CachedAggregation>>();

function cacheOf(input: ReadInput): PlanCache<CachedAggregation> {
  let cache = caches.get(input.planOwner);
  if (cache === undefined) caches.set(input.planOwner, (cache = new PlanCache<CachedAggregation>()));
  return cache;
}

/**
 * The cost of an aggregated read: the set read once, and its groups, at most one per row and each far
 * smaller than an entity, counted as a second read of the set; correlated when an expression reads
 * related rows per row. Reads of one class share what the executor learns of their speed.
 */
function aggregationCost(type: EntityType, aggregation: PlannedAggregation, kind: string): ReadCost {
  return { correlated: aggregation.correlated, walks: aggregation.walks, scans: [type.table, type.table], table: type.table, rows: 0, expansions: [], costClass: `aggregate|${kind}|${type.name}|${aggregation.kind}` };
}

/**
 * The plan of an aggregated read of `type` restricted by `conditions`: its page, or only its count.
 * `cancellable` compiles the statements for a read thread (not cached).
 */
export function planAggregatedRequest(input: ReadInput, kind: 'collection' | 'count', type: EntityType, conditions: readonly PathCondition[], format: JsonFormat, opts: { readonly cancellable?: boolean } = {}): AggregatedReadPlan {
  const compileOptions = { cancellable: opts.cancellable === true };
  const companyId = input.companyId;
  const options = input.options;
  const { size, preferenceApplied } = input.page;
  const top = options.top;
  const final = top !== undefined && top <= size;
  const values: SqlValue[] = [isoNow(), companyId ?? null, ...conditions.map((c) => c.value)];
  const build = (v: readonly SqlValue[]): PlannedShape<CachedAggregation> => {
    const aggregation = planAggregation({ model: input.model, type, options, ctx: exprContext(input.dialect, v[0] as string) });
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
    const { rows, count } = aggregatedSelects(input.dialect, aggregation, company, conds, window);
    const statements: CompiledQuery[] = [];
    // An uncorrelated scalar subquery: both engines compute it once per statement.
    const counted: SelectNode = { ...rows, columns: [...rows.columns, { expr: { kind: 'subquery', query: count }, alias: COUNT_ALIAS }] };
    if (kind === 'collection') statements.push(compile(options.count === true ? counted : rows, input.dialect, compileOptions));
    if (kind === 'count' || options.count === true) statements.push(compile(count, input.dialect, compileOptions));
    return { value: { aggregation, cost: aggregationCost(type, aggregation, kind) }, statements };
  };
  const key = opts.cancellable === true ? undefined : shapeKey(input, `aggregated ${kind}`, type, conditions, format);
  const planned = key === undefined ? build(values) : cacheOf(input).get(key, values, build);
  const { aggregation, cost } = planned.value;
  if (kind === 'count') return { aggregation, count: planned.statements[0], cost };
  const [rows, count] = planned.statements;
  const offset = aggregation.kind !== 'concat' ? 0 : options.skiptoken === undefined ? (options.skip ?? 0) : Number(decodeSkiptoken(options.skiptoken, 1)[0]);
  const page: AggregatedPage = {
    size,
    preferenceApplied,
    next(last, returned) {
      const remaining = top === undefined ? undefined : top - returned;
      if (remaining !== undefined && remaining <= 0) return undefined;
      if (aggregation.kind === 'concat') return nextLinkUrl(input.url, encodeSkiptoken([offset + returned]), remaining);
      if (aggregation.keys.length === 0) return undefined;
      const tokenValues: TokenValue[] = [];
      for (let i = 0; i < aggregation.sortCount; i++) tokenValues.push((last[`${SORT_PREFIX}${i}`] ?? null) as TokenValue);
      for (const k of aggregation.keys) tokenValues.push((last[k.column] ?? null) as TokenValue);
      return nextLinkUrl(input.url, encodeSkiptoken(tokenValues), remaining);
    },
  };
  return { aggregation, rows, count, ...(options.count === true ? { countInRows: true as const } : {}), page, cost };
}
