/**
 * Assembles a service from options: loads and checks the model, opens and migrates the database,
 * writes the event definitions and the webhook supported resources, wires the core and starts webhook
 * delivery. `handle` is the core entry point; `http/` wraps it for express.
 */
import { FairUse } from './core/fair-use.js';
import { FairUseSharing } from './core/fair-use-sharing.js';
import pino, { type Logger } from 'pino';
import { RefusalLog } from './errors/refusal-log.js';
import type { Database } from './db/sqlite/sqlite-database.js';
import type { Engine } from './db/engine.js';
import { openEngine } from './db/open-engine.js';
import { SqliteEngine } from './db/sqlite/sqlite-engine.js';
import { loadModel } from './edm/load-model.js';
import type { EdmModel } from './edm/model.js';
import { handle } from './core/handle.js';
import type { ODataRequest, ODataResponse } from './core/request.js';
import type { ServiceContext } from './core/service-context.js';
import { buildHookRegistry } from './hooks/registry.js';
import type { EntityHooks } from './hooks/types.js';
import { DeliveryStore } from './events/delivery-store.js';
import { DeliveryWorker, type DeliveryQueue } from './events/delivery-worker.js';
import { ChangeStore } from './events/change-store.js';
import { syncEventDefinitions } from './events/event-definitions.js';
import { syncWebhookResources } from './events/webhook-resources.js';
import { eventFrameworkHooks } from './events/subscription-checks.js';
import { changeSubscriptionHooks } from './events/change-subscription-checks.js';
import type { CurrentRowReader } from './events/current-row.js';
import { readRow } from './store/resolve-path.js';
import { rowOf } from './store/tx-access.js';
import { OutboundClient } from './events/outbound.js';
import { OutboxSignal } from './events/outbox-signal.js';
import type { ServiceOptions } from './config.js';
import { BodyValidator } from './validation/validate-body.js';
import { createVersionClock } from './edm/etag.js';
import { UserStore } from './auth/user-store.js';
import { TokenStore } from './auth/token-store.js';
import { Authenticator } from './auth/authenticator.js';
import { AccessCache } from './auth/access-cache.js';
import { FailedAuthentications } from './auth/failed-authentications.js';
import { parseLimitsOf } from './uri/parse-limits.js';
import { PathTemplates } from './uri/path-templates.js';
import { QueryOptionsCache } from './uri/query-options-cache.js';
import { KeyReadPaths } from './core/key-read-paths.js';
import { handleBatch } from './batch/handle-batch.js';

/** A running service instance. */
export interface Service {
  readonly model: EdmModel;
  readonly engine: Engine;
  /** The SQLite connection, for tests and tools that look inside it; throws on another engine. */
  readonly db: Database;
  readonly log: Logger;
  readonly context: ServiceContext;
  /**
   * The core: one request in, one response out; never throws or rejects. The response comes as a
   * promise only when the request had to wait (writes, JWT verification); `await` takes either.
   */
  handle(req: ODataRequest): ODataResponse | Promise<ODataResponse>;
  /** Options the service was created with (the HTTP layer reads the rate limit). */
  readonly options: ServiceOptions;
  /** The business events' delivery worker; undefined when the model has no event types or delivery is off. */
  readonly delivery: DeliveryWorker | undefined;
  /** The entity changes' delivery worker; undefined when the model has no change subscription type or delivery is off. */
  readonly changeDelivery: DeliveryWorker | undefined;
  /** Stops delivery (in-flight notifications stay pending) and closes the database. */
  close(): Promise<void>;
}

/** The delivery workers of a service, started: business events and entity changes (each when the model has its types). */
interface Deliveries {
  readonly events: DeliveryWorker | undefined;
  readonly changes: DeliveryWorker | undefined;
  readonly outbound: OutboundClient;
}

/** Starts webhook delivery; undefined when the model has nothing to deliver or delivery is off. */
function startDelivery(context: ServiceContext, options: ServiceOptions): Deliveries | undefined {
  const { model, engine, log } = context;
  const webhooks = options.webhooks;
  if ((model.eventTypes === undefined && model.changeSubscriptionType === undefined) || !webhooks.deliver) return undefined;
  const outbound = new OutboundClient({ allowPrivate: webhooks.allowPrivate, timeoutMs: webhooks.timeoutMs, maxSockets: webhooks.concurrency });
  const root = `${webhooks.publicBaseUrl.replace(/\/+$/, '')}${model.service.serviceRoot}`;
  const worker = (queue: DeliveryQueue): DeliveryWorker => {
    const w = new DeliveryWorker(queue, outbound, webhooks, context.outboxSignal, log);
    w.start();
    return w;
  };
  return {
    events: model.eventTypes === undefined ? undefined : worker(new DeliveryStore(engine, model, root)),
    changes: model.changeSubscriptionType === undefined ? undefined : worker(new ChangeStore(engine, model, root)),
    outbound,
  };
}

/**
 * Creates a service with the given hook modules (the explicit list of `src/rules/index.ts`); throws
 * ModelError / MigrationError for a bad model or an incompatible database, HookRegistryError for a
 * hook module that does not fit the model (checked before the database is opened).
 */
export async function createService(options: ServiceOptions, rules: readonly EntityHooks[] = []): Promise<Service> {
  const log = pino({ level: options.logLevel, base: undefined });
  const model = loadModel(options.metadataDir);
  // The framework's hooks are checked before the database opens; the row reader they are given (a PATCH's
  // current row, read outside the transaction) reads through the context once it exists.
  let reader: ServiceContext | undefined;
  const currentRow: CurrentRowReader = async (type, key) => {
    if (reader === undefined) throw new Error('the service is not ready');
    const row = await readRow(reader, reader.engine.db, type, undefined, [{ property: type.key.name, value: key }]);
    return row === undefined ? undefined : rowOf(type, row);
  };
  const hooks = buildHookRegistry(model, rules, [...eventFrameworkHooks(model, currentRow), ...changeSubscriptionHooks(model, currentRow)]);
  const engine = await openEngine(options.dbFile, model.service, log, {
    ...(options.dbConnections === undefined ? {} : { connections: options.dbConnections }),
    ...(options.readReplicas === undefined ? {} : { readReplicas: options.readReplicas }),
  });
  try {
    const report = await engine.migrate(model);
    if (report.createdTables.length + report.addedColumns.length + report.droppedIndexes.length + report.recountedCounters.length + Object.keys(report.stampedEtags).length + (report.rebuiltEntityJson?.length ?? 0) > 0) log.info(report, 'database schema updated');
  } catch (e) {
    await engine.close();
    throw e;
  }
  const users = new UserStore(engine, model);
  const hookOutbound = new OutboundClient({ allowPrivate: options.webhooks.allowPrivate, timeoutMs: options.webhooks.handshakeTimeoutMs, maxSockets: 4 });
  const tokens = new TokenStore(engine);
  const access = new AccessCache(engine);
  const parseLimits = parseLimitsOf(model.service);
  const paths = new PathTemplates(256, undefined, parseLimits);
  const queryOptions = new QueryOptionsCache(256, parseLimits);
  const context: ServiceContext = {
    model,
    engine,
    validator: new BodyValidator(),
    nextVersion: createVersionClock(),
    log,
    refusals: new RefusalLog(log),
    defaultCompany: options.defaultCompany,
    metadataCache: new Map(),
    hooks,
    users,
    tokens,
    authenticator: new Authenticator(users, tokens, access, options.jwt, log),
    authFailures: new FailedAuthentications(options.authRateLimit.windowMs, options.authRateLimit.max),
    fairUse: new FairUse(model.service),
    access,
    publicMetadata: options.publicMetadata,
    outbound: hookOutbound,
    callTimeoutMs: options.webhooks.handshakeTimeoutMs,
    outboxSignal: new OutboxSignal(),
    parseLimits,
    paths,
    queryOptions,
    keyReads: new KeyReadPaths(model, paths, queryOptions),
    handleBatch,
  };
  reader = context;
  try {
    const definitions = await syncEventDefinitions(context);
    if (definitions.inserted + definitions.updated + definitions.deleted > 0) log.info(definitions, 'event definitions updated');
    const resources = await syncWebhookResources(context);
    if (resources.inserted + resources.deleted > 0) log.info(resources, 'webhook supported resources updated');
  } catch (e) {
    await engine.close();
    throw e;
  }
  const delivery = startDelivery(context, options);
  const sharing = options.shareFairUse === true ? new FairUseSharing(context.fairUse, engine, log) : undefined;
  sharing?.start();
  return {
    model,
    engine,
    get db(): Database {
      if (engine instanceof SqliteEngine) return engine.database;
      throw new Error(`service.db is the SQLite connection; this service runs on ${engine.name}`);
    },
    log,
    context,
    handle: (req) => handle(context, req),
    options,
    delivery: delivery?.events,
    changeDelivery: delivery?.changes,
    close: async () => {
      const workers = [delivery?.events, delivery?.changes].filter((w) => w !== undefined);
      for (const w of workers) w.stop();
      for (const w of workers) await w.idle();
      for (const w of workers) await w.releaseClaims();
      delivery?.outbound.close();
      hookOutbound.close();
      await sharing?.stop();
      await engine.close();
    },
  };
}
