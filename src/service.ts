/**
 * Assembles a service from options: loads and checks the model, opens and migrates the database,
 * writes the event definitions, wires the core and starts webhook delivery. `handle` is the core entry
 * point; `http/` wraps it for express.
 */
import pino, { type Logger } from 'pino';
import { openDatabase, type Database } from './db/database.js';
import { migrate } from './db/migrate.js';
import { loadModel } from './edm/load-model.js';
import type { EdmModel } from './edm/model.js';
import { handle } from './core/handle.js';
import type { ODataRequest, ODataResponse } from './core/request.js';
import type { ServiceContext } from './core/service-context.js';
import { buildHookRegistry } from './hooks/registry.js';
import type { EntityHooks } from './hooks/types.js';
import { createOutboxTable } from './events/outbox.js';
import { createDeliveryTables } from './events/delivery-tables.js';
import { DeliveryStore } from './events/delivery-store.js';
import { DeliveryWorker } from './events/delivery-worker.js';
import { syncEventDefinitions } from './events/event-definitions.js';
import { eventFrameworkHooks } from './events/subscription-checks.js';
import { OutboundClient } from './events/outbound.js';
import { OutboxSignal } from './events/outbox-signal.js';
import type { ServiceOptions } from './config.js';
import { BodyValidator } from './validation/validate-body.js';
import { createVersionClock } from './serialize/etag.js';
import { createAuthTables } from './db/auth-tables.js';
import { UserStore } from './auth/user-store.js';
import { TokenStore } from './auth/token-store.js';
import { Authenticator } from './auth/authenticator.js';
import { AccessCache } from './auth/access-cache.js';
import { FailedAuthentications } from './auth/failed-authentications.js';
import { parseLimitsOf } from './uri/limits.js';
import { PathTemplates } from './uri/path-templates.js';
import { ReadPool } from './db/read-pool.js';
import { ReadExecutor } from './db/read-executor.js';

/** A running service instance. */
export interface Service {
  readonly model: EdmModel;
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
  /** The webhook delivery worker; undefined when the model has no event types or delivery is off. */
  readonly delivery: DeliveryWorker | undefined;
  /** Stops delivery (in-flight notifications stay pending) and closes the database. */
  close(): void;
}

/** The delivery worker of a service, started; undefined when there is nothing to deliver or delivery is off. */
function startDelivery(context: ServiceContext, options: ServiceOptions): { worker: DeliveryWorker; outbound: OutboundClient } | undefined {
  const { model, db, log } = context;
  const webhooks = options.webhooks;
  if (model.eventTypes === undefined || !webhooks.deliver) return undefined;
  const outbound = new OutboundClient({ allowPrivate: webhooks.allowPrivate, timeoutMs: webhooks.timeoutMs, maxSockets: webhooks.concurrency });
  const store = new DeliveryStore(db, model, `${webhooks.publicBaseUrl.replace(/\/+$/, '')}${model.service.serviceRoot}`);
  const worker = new DeliveryWorker(store, outbound, webhooks, context.outboxSignal, log);
  worker.start();
  return { worker, outbound };
}

/**
 * Creates a service with the given hook modules (the explicit list of `src/rules/index.ts`); throws
 * ModelError / MigrationError for a bad model or an incompatible database, HookRegistryError for a
 * hook module that does not fit the model (checked before the database is opened).
 */
export function createService(options: ServiceOptions, rules: readonly EntityHooks[] = []): Service {
  const log = pino({ level: options.logLevel, base: undefined });
  const model = loadModel(options.metadataDir);
  const hooks = buildHookRegistry(model, rules, eventFrameworkHooks(model));
  const db = openDatabase(options.dbFile);
  try {
    const report = migrate(db, model);
    if (report.createdTables.length + report.addedColumns.length + report.droppedIndexes.length + report.recountedCounters.length + Object.keys(report.stampedEtags).length > 0) log.info(report, 'database schema updated');
    createOutboxTable(db);
    createDeliveryTables(db);
    createAuthTables(db, model.company.table);
  } catch (e) {
    db.close();
    throw e;
  }
  const users = new UserStore(db, model);
  const hookOutbound = new OutboundClient({ allowPrivate: options.webhooks.allowPrivate, timeoutMs: options.webhooks.handshakeTimeoutMs, maxSockets: 4 });
  const tokens = new TokenStore(db);
  const access = new AccessCache(db);
  const parseLimits = parseLimitsOf(model.service);
  const limits = model.service;
  // Read threads need the database in a file they can open; an in-memory database runs every read on the event loop.
  const pool =
    options.dbFile !== ':memory:' && limits.readWorkers > 0
      ? new ReadPool({ file: options.dbFile, threads: limits.readWorkers, maxQueued: limits.maxQueuedReads, timeoutMs: limits.requestTimeoutMs }, log)
      : undefined;
  const context: ServiceContext = {
    model,
    db,
    reads: new ReadExecutor(db, pool, limits.maxInlineRows),
    validator: new BodyValidator(),
    nextVersion: createVersionClock(),
    log,
    defaultCompany: options.defaultCompany,
    metadataCache: new Map(),
    hooks,
    users,
    tokens,
    authenticator: new Authenticator(users, tokens, access, options.jwt, log),
    authFailures: new FailedAuthentications(options.authRateLimit.windowMs, options.authRateLimit.max),
    access,
    publicMetadata: options.publicMetadata,
    outbound: hookOutbound,
    callTimeoutMs: options.webhooks.handshakeTimeoutMs,
    outboxSignal: new OutboxSignal(),
    parseLimits,
    paths: new PathTemplates(256, undefined, parseLimits),
  };
  const definitions = syncEventDefinitions(context);
  if (definitions.inserted + definitions.updated + definitions.deleted > 0) log.info(definitions, 'event definitions updated');
  const delivery = startDelivery(context, options);
  return {
    model,
    db,
    log,
    context,
    handle: (req) => handle(context, req),
    options,
    delivery: delivery?.worker,
    close: () => {
      delivery?.worker.stop();
      delivery?.outbound.close();
      hookOutbound.close();
      void pool?.close();
      db.close();
    },
  };
}
