/**
 * Parsed query options by query string: a client repeats its queries (a list page, a filtered view,
 * Power Query refreshing), so a query string seen again is not parsed again. The parse is a function of
 * the string and the parse limits alone, and a QueryOptions is never changed after parsing (every
 * field is readonly; the core adds conditions by making new objects, core/handle.ts andFilter), so
 * requests of the same query string share one parse. That also lets what is derived from the options
 * alone be kept with the object (the plan cache's key, query/plan-read-request.ts optionsKey).
 *
 * A kept parse is frozen (util/deep-freeze.ts; its two Maps, aliases and custom options, are held
 * as ReadonlyMaps), so that code changing it throws instead of changing later requests. A query
 * string is learned the second time it comes (util/second-sight-cache.ts, as resource paths are): one
 * that never repeats costs a lookup, not a copy. Long query strings are never kept, errors are never kept (a bad query string is parsed, and
 * refused, every time), and the cache is cleared when full.
 */
import type { QueryOptions } from './ast.js';
import { DEFAULT_PARSE_LIMITS, type ParseLimits } from './parse-limits.js';
import { parseQueryOptions } from './parse-options.js';
import { SecondSightCache } from '../util/second-sight-cache.js';
import { deepFreeze } from '../util/deep-freeze.js';

/** Query strings longer than this are parsed every time (their parses are the large ones). */
export const MAX_CACHED_QUERY_LENGTH = 2048;

/** Parses query strings once per string (see the file comment). Bounded: cleared when full. */
export class QueryOptionsCache {
  private readonly entries: SecondSightCache<QueryOptions>;

  constructor(
    limit = 256,
    private readonly limits: ParseLimits = DEFAULT_PARSE_LIMITS,
  ) {
    this.entries = new SecondSightCache<QueryOptions>(limit);
  }

  /** The parse of `rawQuery`, the same as parseQueryOptions(rawQuery, limits) (which also throws its errors). */
  parse(rawQuery: string): QueryOptions {
    const kept = rawQuery.length > MAX_CACHED_QUERY_LENGTH ? undefined : this.entries.get(rawQuery, () => deepFreeze(parseQueryOptions(rawQuery, this.limits)));
    return kept ?? parseQueryOptions(rawQuery, this.limits);
  }
}
