/**
 * Opens a database for the administration commands: loads the model, brings the schema up to date and
 * creates the auth tables, then hands out the user and token stores.
 */
import fs from 'node:fs';
import path from 'node:path';
import { defaultOptions } from '../config.js';
import { loadModel } from '../edm/load-model.js';
import type { EdmModel } from '../edm/model.js';
import { openDatabase, type Database } from '../db/database.js';
import { migrate } from '../db/migrate.js';
import { createAuthTables } from '../db/auth-tables.js';
import { UserStore } from '../auth/user-store.js';
import { TokenStore } from '../auth/token-store.js';

/** The stores of one database. */
export interface Stores {
  readonly model: EdmModel;
  readonly db: Database;
  readonly users: UserStore;
  readonly tokens: TokenStore;
  close(): void;
}

/** Opens `dbFile` (created if missing) with the model in `metadataDir` (default: the packaged one). */
export function openStores(dbFile: string, metadataDir?: string): Stores {
  const model = loadModel(metadataDir ?? defaultOptions().metadataDir);
  if (dbFile !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(dbFile)), { recursive: true });
  const db = openDatabase(dbFile);
  migrate(db, model);
  createAuthTables(db, model.company.table);
  return { model, db, users: new UserStore(db, model), tokens: new TokenStore(db), close: () => db.close() };
}
