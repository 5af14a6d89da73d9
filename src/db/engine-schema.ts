/**
 * The storage seam's DDL half (proposed for `Engine.schema`): what an engine does to a database at
 * start-up and for the command line, so no module outside an engine's folder writes DDL text. SQLite:
 * db/sqlite/sqlite-schema.ts (over db/migrate.ts, db/auth-tables.ts and the events' tables), PostgreSQL:
 * db/postgres/postgres-schema.ts.
 */
import type { EdmModel } from '../edm/model.js';
import type { MaybePromise } from './engine.js';
import type { MigrationReport } from './migrate.js';

/** Creating and extending an engine's tables. */
export interface EngineSchema {
  /**
   * Creates or extends the model's tables (columns, keys, indexes, related-row counters, stored ETags)
   * and the framework's own (auth, outbox, webhook delivery) in one transaction, once across instances
   * that start together; a MigrationError (db/migrate.ts) for what cannot be applied without losing data.
   */
  migrate(model: EdmModel): MaybePromise<MigrationReport>;
  /** Creates the auth tables alone when missing (command-line tools that need no more). */
  createAuthTables(companyTable: string): MaybePromise<void>;
  /** The columns of a table, in order; empty when it does not exist. */
  tableColumns(table: string): MaybePromise<string[]>;
}
