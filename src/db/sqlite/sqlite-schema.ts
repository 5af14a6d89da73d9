/**
 * SQLite's EngineSchema (db/engine-schema.ts): the model's tables by db/migrate.ts, then the outbox,
 * the delivery tables and the auth tables, as service.ts creates them at start-up; synchronous.
 */
import type { EdmModel } from '../../edm/model.js';
import { createAuthTables } from '../auth-tables.js';
import type { Database } from '../database.js';
import type { EngineSchema } from '../engine-schema.js';
import { migrate, type MigrationReport } from '../migrate.js';
import { createOutboxTable } from '../../events/outbox.js';
import { createDeliveryTables } from '../../events/delivery-tables.js';

/** SQLite's schema operations on one connection. */
export class SqliteSchema implements EngineSchema {
  constructor(private readonly db: Database) {}

  migrate(model: EdmModel): MigrationReport {
    const report = migrate(this.db, model);
    createOutboxTable(this.db);
    createDeliveryTables(this.db);
    createAuthTables(this.db, model.company.table);
    return report;
  }

  createAuthTables(companyTable: string): void {
    createAuthTables(this.db, companyTable);
  }

  tableColumns(table: string): string[] {
    return (this.db.raw.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[]).map((c) => c.name);
  }
}
