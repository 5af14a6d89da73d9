/**
 * Assembles a service from options: loads and checks the model, opens and migrates the database,
 * and wires the core. `handle` is the core entry point; `http/` wraps it for express.
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
import type { ServiceOptions } from './config.js';
import { BodyValidator } from './validation/validate-body.js';
import { createVersionClock } from './serialize/etag.js';
import { createAuthTables } from './db/auth-tables.js';
import { UserStore } from './auth/user-store.js';
import { TokenStore } from './auth/token-store.js';
import { Authenticator } from './auth/authenticator.js';

/** A running service instance. */
export interface Service {
  readonly model: EdmModel;
  readonly db: Database;
  readonly log: Logger;
  readonly context: ServiceContext;
  /** The core: one request in, one response out. */
  handle(req: ODataRequest): Promise<ODataResponse>;
  /** Options the service was created with (the HTTP layer reads the rate limit). */
  readonly options: ServiceOptions;
  close(): void;
}

/**
 * Creates a service with the given hook modules (the explicit list of `src/rules/index.ts`); throws
 * ModelError / MigrationError for a bad model or an incompatible database, HookRegistryError for a
 * hook module that does not fit the model (checked before the database is opened).
 */
export function createService(options: ServiceOptions, rules: readonly EntityHooks[] = []): Service {
  const log = pino({ level: options.logLevel, base: undefined });
  const model = loadModel(options.metadataDir);
  const hooks = buildHookRegistry(model, rules);
  const db = openDatabase(options.dbFile);
  try {
    const report = migrate(db, model);
    if (report.createdTables.length > 0 || report.addedColumns.length > 0) log.info(report, 'database schema updated');
    createOutboxTable(db);
    createAuthTables(db, model.company.table);
  } catch (e) {
    db.close();
    throw e;
  }
  const users = new UserStore(db, model);
  const tokens = new TokenStore(db);
  const context: ServiceContext = {
    model,
    db,
    validator: new BodyValidator(),
    nextVersion: createVersionClock(),
    log,
    defaultCompany: options.defaultCompany,
    metadataCache: new Map(),
    hooks,
    users,
    tokens,
    authenticator: new Authenticator(users, tokens, options.jwt, log),
    publicMetadata: options.publicMetadata,
  };
  return {
    model,
    db,
    log,
    context,
    handle: (req) => handle(context, req),
    options,
    close: () => db.close(),
  };
}
