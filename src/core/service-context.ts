/**
 * What every request handler needs from the running service: the model, the database, the body
 * validator, the row-version clock, the logger and the business-rule hooks. Built once by `createService`.
 */
import type { FairUse } from './fair-use.js';
import type { StoreContext } from '../store/store-context.js';
import type { BodyValidator } from '../validation/validate-body.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { AccessCache } from '../auth/access-cache.js';
import type { UserStore } from '../auth/user-store.js';
import type { TokenStore } from '../auth/token-store.js';
import type { OutboundHttp } from '../events/outbound.js';
import type { OutboxSignal } from '../events/outbox-signal.js';
import type { ParseLimits } from '../uri/parse-limits.js';
import type { FailedAuthentications } from '../auth/failed-authentications.js';
import type { RefusalLog } from '../errors/refusal-log.js';
import type { PathTemplates } from '../uri/path-templates.js';
import type { KeyReadPaths } from './key-read-paths.js';
import type { QueryOptionsCache } from '../uri/query-options-cache.js';
import type { ODataRequest, ODataResponse } from './request.js';
import type { OperationRunners } from './operation-runners.js';

/** Handles one request of a batch with the batch's principal and the runners the batch gives it; never throws. */
export type PartHandler = (req: ODataRequest, runners: OperationRunners) => ODataResponse | Promise<ODataResponse>;

/**
 * Runs a `$batch` request, each part through `handlePart`. The service root wires in the batch layer
 * (batch/handle-batch.ts), which sits above the pipeline and calls it for every part.
 */
export type BatchRunner = (svc: ServiceContext, req: ODataRequest, handlePart: PartHandler) => Promise<ODataResponse>;

/** Long-lived service state shared by all requests; the store's context is part of it. */
export interface ServiceContext extends StoreContext {
  /** Notified after every commit that wrote outbox rows (the delivery worker listens). */
  readonly outboxSignal: OutboxSignal;
  readonly validator: BodyValidator;
  /** The error log of refused requests (503), one line per cause and minute (errors/refusal-log.ts). */
  readonly refusals: RefusalLog;
  /** Company (id or name) for unscoped URLs when the request names none; see Principal.defaultCompany. */
  readonly defaultCompany?: string;
  /** Cached $metadata documents (built once from the model). */
  readonly metadataCache: Map<string, string>;
  /** Bearer-token authentication (opaque tokens, JWTs). */
  readonly authenticator: Authenticator;
  /** Failed authentications per client address and credential (conventions §11). */
  readonly authFailures: FailedAuthentications;
  /** Each user's request window, running requests and queue (fair-use.ts). */
  readonly fairUse: FairUse;
  /** Tokens, principals and companies between requests (refreshed by the authenticator on each request). */
  readonly access: AccessCache;
  readonly users: UserStore;
  readonly tokens: TokenStore;
  /** The service document and $metadata need no token. */
  readonly publicMetadata: boolean;
  /** Outbound HTTP for hooks (webhook handshakes), under the operator's webhook policy. */
  readonly outbound: OutboundHttp;
  /** Time limit of hook call-outs (the webhook handshake), ms. */
  readonly callTimeoutMs: number;
  /** URL parse limits from the model's `limits`. */
  readonly parseLimits: ParseLimits;
  /** Resource paths parsed once per shape under `parseLimits` (uri/path-templates.ts). */
  readonly paths: PathTemplates;
  /** Query strings parsed once per string under `parseLimits` (uri/query-options-cache.ts). */
  readonly queryOptions: QueryOptionsCache;
  /** GETs by key bound once per path shape (key-read-paths.ts). */
  readonly keyReads: KeyReadPaths;
  /** Runs `$batch` requests (see BatchRunner). */
  readonly handleBatch: BatchRunner;
}
