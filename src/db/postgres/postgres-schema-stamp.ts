/**
 * The stamp of the schema a migration left (PostgreSQL): a hash of every statement the migration
 * would run for the model, kept in `_schemaStamp`. An instance that starts on a database whose stamp
 * matches runs no DDL at all: DDL locks the tables that running instances write (CREATE OR REPLACE
 * TRIGGER, CREATE INDEX), so an instance starting while others serve would queue behind their
 * transactions and they behind it. A changed model, or a version of the framework with other
 * statements, gives another stamp and migrates. (A database changed by hand is not repaired until then.)
 */
import { createHash } from 'node:crypto';
import type { EdmModel } from '../../edm/model.js';
import { rowCountersOf } from '../row-counters.js';
import type { PostgresSession } from './postgres-database.js';
import { foreignKeyDefs, postgresColumnDefs, postgresIndexDefs } from './postgres-ddl.js';
import { postgresFrameworkTablesSql } from './postgres-framework-tables.js';
import { postgresFunctionsSql } from './postgres-functions.js';
import { postgresChangeCaptureSql } from './postgres-change-capture.js';
import { postgresCounterTriggers } from './postgres-row-counters.js';
import { entityJsonTriggersSql } from './postgres-entity-json.js';
import { setCountsSql, setCountTriggersSql } from './postgres-set-counts.js';

const TABLE = '"_schemaStamp"';

/** The stamp of the model's schema: a hash of the statements that make it. */
export function schemaStamp(model: EdmModel): string {
  const parts: unknown[] = [postgresFunctionsSql(undefined), postgresFrameworkTablesSql(model.company.table)];
  for (const type of model.entityTypes) {
    parts.push(type.table, postgresColumnDefs(model, type), postgresIndexDefs(model, type).map((i) => i.sql), foreignKeyDefs(model, type).map((f) => f.sql));
    for (const c of rowCountersOf(type)) parts.push(postgresCounterTriggers(c));
    if (type.scope === 'company') parts.push(setCountTriggersSql(type));
  }
  // A lookup's path is no column, so the triggers of the stored entity JSON count on their own.
  parts.push(entityJsonTriggersSql(model), setCountsSql(), postgresChangeCaptureSql(model));
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** The stamp the database holds (undefined before the first migration that wrote one). */
export async function storedStamp(s: PostgresSession): Promise<string | undefined> {
  const exists = await s.get({ sql: `SELECT to_regclass('"_schemaStamp"') IS NOT NULL AS "e"`, params: [] });
  if (exists?.['e'] !== 1) return undefined;
  const row = await s.get({ sql: `SELECT "stamp" FROM ${TABLE} WHERE "id" = 1`, params: [] });
  return row === undefined ? undefined : String(row['stamp']);
}

/** Records the stamp, in the migration's transaction. */
export async function writeStamp(s: PostgresSession, stamp: string): Promise<void> {
  await s.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} ("id" integer NOT NULL PRIMARY KEY CHECK ("id" = 1), "stamp" text NOT NULL)`);
  await s.run({ sql: `INSERT INTO ${TABLE} ("id", "stamp") VALUES (1, $1) ON CONFLICT ("id") DO UPDATE SET "stamp" = EXCLUDED."stamp"`, params: [stamp] });
}
