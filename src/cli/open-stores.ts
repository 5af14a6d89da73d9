/**
 * Opens a database for the administration commands: loads the model, brings the schema up to date and
 * creates the auth tables, then hands out the user and token stores.
 */
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { defaultOptions } from '../config.js';
import { loadModel } from '../edm/load-model.js';
import type { EdmModel } from '../edm/model.js';
import type { Engine } from '../db/engine.js';
import { openEngine } from '../db/open-engine.js';
import { parseDatabaseLocation } from '../db/database-location.js';
import { UserStore } from '../auth/user-store.js';
import { TokenStore } from '../auth/token-store.js';

/** The stores of one database. */
export interface Stores {
  readonly model: EdmModel;
  readonly engine: Engine;
  readonly users: UserStore;
  readonly tokens: TokenStore;
  close(): Promise<void>;
}

/** Opens `db` (a SQLite file, created if missing, or a PostgreSQL URL) with the model in `metadataDir` (default: the packaged one). */
export async function openStores(db: string, metadataDir?: string): Promise<Stores> {
  const model = loadModel(metadataDir ?? defaultOptions().metadataDir);
  const where = parseDatabaseLocation(db);
  if (where.kind === 'sqlite' && where.file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(where.file)), { recursive: true });
  // No read threads: a command runs a few statements and exits.
  const engine = await openEngine(db, { ...model.service, readWorkers: 0 }, pino({ level: 'warn', base: undefined }));
  try {
    await engine.migrate(model);
  } catch (e) {
    await engine.close();
    throw e;
  }
  return { model, engine, users: new UserStore(engine, model), tokens: new TokenStore(engine), close: () => engine.close() };
}
