/**
 * The limits a service applies to requests (metadata/service.json `limits`): what one request may ask
 * for and how much work, memory and time it may take. Each refusal names its setting (`limits.<name>`),
 * so an operator knows what to raise; the README's "Limits" section lists them with their errors.
 */

/** Every limit, with its meaning; the defaults are DEFAULT_LIMITS. */
export interface ServiceLimits {
  /** Server-driven page size (conventions §4). */
  readonly pageSize: number;
  /** The largest `Prefer: odata.maxpagesize` honoured. */
  readonly maxPageSize: number;
  /** Maximum request body, bytes (413 above). */
  readonly maxBodyBytes: number;
  /** Deepest nesting of a JSON request body (objects and arrays); deeper is a 400. */
  readonly maxJsonDepth: number;
  /** Most requests in one `$batch`, those in change sets included; more is a 400. */
  readonly maxBatchParts: number;
  /** Most entities a deep insert creates besides the one POSTed (all levels); more is a 400. */
  readonly maxNestedEntities: number;
  /** Most entities one `$batch` change set writes, its requests and the entities nested in their bodies; more is a 400. */
  readonly maxChangeSetEntities: number;
  /**
   * The work the reads of one `$batch` may do together, evaluated in full, in the cost model's row units
   * (query/read-cost.ts fullWork); more is a 400 before they run.
   */
  readonly maxBatchWork: number;
  /** Maximum $expand depth. */
  readonly maxExpandDepth: number;
  /** Maximum $top (top level and inside $expand). */
  readonly maxTop: number;
  /** Longest path or query string, characters (414 above). */
  readonly maxUrlLength: number;
  /** Deepest nesting of expressions, parentheses and $expand levels in a URL. */
  readonly maxExpressionDepth: number;
  /** Most syntax nodes one path or query string may have (the size of a $filter). */
  readonly maxSyntaxNodes: number;
  /** Deepest nesting of lambdas (any/all inside any/all) in a $filter. */
  readonly maxLambdaDepth: number;
  /** Most entities of one expanded collection for one parent entity. */
  readonly maxExpandRows: number;
  /** Most expanded entities under one entity of a response, all nested levels together. */
  readonly maxExpandedRows: number;
  /** Most bytes of one response body; a page ends early (with a next link) before it passes them. */
  readonly maxResponseBytes: number;
  /** Time a read may take, ms; past it the query is cancelled and the request answered 503. */
  readonly requestTimeoutMs: number;
  /** Threads that run reads too large to run on the event loop (SQLite file databases). */
  readonly readWorkers: number;
  /** Reads waiting for a read thread at once; beyond, 503. */
  readonly maxQueuedReads: number;
  /** Reads of one user waiting for a read thread at once; beyond, 429 (the threads take the users' reads in turn). */
  readonly userQueuedReads: number;
  /**
   * The work a read may be expected to do and still run on the event loop, in rows examined (an entity
   * written counts 30, an expanded one 15: query/read-cost.ts); about 10 ms at the default.
   */
  readonly maxInlineRows: number;
  /** Requests one user may send in a sliding 5-minute window (a `$batch`'s parts count one each); more is a 429. */
  readonly userRequestsPer5Min: number;
  /** Requests of one user that run at once (a `$batch` is one); more wait in the user's queue. */
  readonly userConcurrentRequests: number;
  /** Requests of one user that may wait for a running place; more, or a longer wait than requestTimeoutMs, is a 429. */
  readonly userQueuedRequests: number;
  /** PostgreSQL read replicas: a replica whose replay lag is past this, ms, answers no reads until it catches up. */
  readonly maxReplicaLagMs: number;
  /** Webhook subscriptions of one company, entity-change and business-event ones together; more is a 400. */
  readonly subscriptionsPerCompany: number;
  /** Webhook subscriptions of one user in one company, both kinds together; more is a 400. */
  readonly subscriptionsPerUser: number;
}

/** The defaults of the limits a service.json leaves out. */
export const DEFAULT_LIMITS: ServiceLimits = Object.freeze({
  pageSize: 20000,
  maxPageSize: 20000,
  maxBodyBytes: 4 * 1024 * 1024,
  maxJsonDepth: 32,
  maxBatchParts: 100,
  maxNestedEntities: 100,
  maxChangeSetEntities: 300,
  maxBatchWork: 100_000_000,
  maxExpandDepth: 3,
  maxTop: 1_000_000,
  maxUrlLength: 32768,
  maxExpressionDepth: 64,
  maxSyntaxNodes: 2000,
  maxLambdaDepth: 2,
  maxExpandRows: 1000,
  maxExpandedRows: 50_000,
  maxResponseBytes: 32 * 1024 * 1024,
  requestTimeoutMs: 5000,
  readWorkers: 1,
  maxQueuedReads: 32,
  userQueuedReads: 8,
  maxInlineRows: 50_000,
  userRequestsPer5Min: 6000,
  userConcurrentRequests: 16,
  userQueuedRequests: 100,
  maxReplicaLagMs: 5000,
  subscriptionsPerCompany: 200,
  subscriptionsPerUser: 20,
});

/** `limits.<name> in service.json`: how refusals name the setting that caused them. */
export function limitSetting(name: keyof ServiceLimits): string {
  return `limits.${name} in service.json`;
}
