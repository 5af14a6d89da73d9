/**
 * PostgreSQL's EngineSchema (db/engine-schema.ts): the dialect's functions, the model's tables
 * (postgres-migrate.ts) and the framework's own (postgres-framework-tables.ts), all in one transaction
 * under the migration lock, so instances that start together (and instances already serving) see the
 * schema whole or not at all.
 */
import type { EdmModel } from '../../edm/model.js';
import type { EngineSchema } from '../engine-schema.js';
import type { MigrationReport } from '../migrate.js';
import type { PostgresDatabase, PostgresSession } from './postgres-database.js';
import { postgresAuthTablesSql, postgresDeliveryTablesSql, postgresOutboxSql } from './postgres-framework-tables.js';
import { createPostgresFunctions, migrateIn, tableColumns, underMigrationLock } from './postgres-migrate.js';

async function execAll(s: PostgresSession, statements: readonly string[]): Promise<void> {
  for (const sql of statements) await s.exec(sql);
}

/** PostgreSQL's schema operations on a pool. */
export class PostgresSchema implements EngineSchema {
  constructor(private readonly db: PostgresDatabase) {}

  migrate(model: EdmModel): Promise<MigrationReport> {
    return underMigrationLock(this.db, async (s) => {
      const report = await migrateIn(s, model);
      await execAll(s, [...postgresOutboxSql(), ...postgresDeliveryTablesSql(), ...postgresAuthTablesSql(model.company.table)]);
      return report;
    });
  }

  createAuthTables(companyTable: string): Promise<void> {
    return underMigrationLock(this.db, async (s) => {
      await createPostgresFunctions(s);
      await execAll(s, postgresAuthTablesSql(companyTable));
    });
  }

  tableColumns(table: string): Promise<string[]> {
    return tableColumns(this.db, table);
  }
}
