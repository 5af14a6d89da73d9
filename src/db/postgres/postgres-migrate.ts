/**
 * Brings a PostgreSQL database in line with the model at start-up, as db/sqlite/sqlite-migrate.ts does for SQLite:
 * creates missing tables, adds missing columns (nullable ones, or ones with a constant default),
 * foreign keys and indexes, drops only indexes derived earlier that the model no longer asks for, then
 * the related-row counters, the stored ETags and the stored entity JSON (postgres-entity-json.ts). Never drops a table or a column. All of it in one
 * transaction (PostgreSQL's DDL is transactional) under an advisory lock, so instances that start
 * together migrate once: the others wait, then find nothing left to do.
 */
import type { EdmModel, EntityType } from '../../edm/model.js';
import { HIDDEN_COLUMNS } from '../../edm/model.js';
import { derivedIndexPrefixes } from '../table-defs.js';
import { MigrationError, type MigrationReport } from '../migration.js';
import { foreignKeyDefs, postgresColumnDefs, postgresCreateTableSql, postgresIndexDefs, q, type PostgresIndexDef } from './postgres-ddl.js';
import { CASE_COLLATIONS, postgresFunctionsSql } from './postgres-functions.js';
import { maintainPostgresRowCounters } from './postgres-row-counters.js';
import { maintainSetCounts } from './postgres-set-counts.js';
import { maintainPostgresEntityJson } from './postgres-entity-json.js';
import type { PostgresDatabase, PostgresSession } from './postgres-database.js';

/** The advisory lock every instance's migration takes (any fixed number; "ecn-odata" in ASCII). */
export const MIGRATION_LOCK = 0x65636e2d6f64n;

const sql = (text: string, params: unknown[] = []) => ({ sql: text, params: params as never[] });

/** The columns of a table in the current schema; empty when it does not exist. */
export async function tableColumns(s: Pick<PostgresSession, 'all'>, table: string): Promise<string[]> {
  const rows = await s.all(sql('SELECT "column_name" AS "name" FROM information_schema.columns WHERE "table_schema" = current_schema() AND "table_name" = $1 ORDER BY "ordinal_position"', [table]));
  return rows.map((r) => String(r['name']));
}

/** Creates the dialect's functions (postgres-functions.ts), mapping case with the best collation the server has. */
export async function createPostgresFunctions(s: PostgresSession): Promise<void> {
  const encoding = await s.get(sql("SELECT current_setting('server_encoding') AS \"e\""));
  if (encoding?.['e'] !== 'UTF8') throw new MigrationError(`The database's encoding is ${String(encoding?.['e'])}; the service needs UTF8 (CREATE DATABASE ... ENCODING 'UTF8').`);
  const present = new Set((await s.all(sql('SELECT "collname" FROM pg_collation WHERE "collname" = ANY($1::text[])', [[...CASE_COLLATIONS]]))).map((r) => String(r['collname'])));
  await s.exec(postgresFunctionsSql(CASE_COLLATIONS.find((c) => present.has(c))));
}

async function createIndex(s: PostgresSession, table: string, index: PostgresIndexDef): Promise<void> {
  await s.exec('SAVEPOINT "index"');
  try {
    await s.exec(index.sql);
    await s.exec('RELEASE SAVEPOINT "index"');
  } catch (e) {
    await s.exec('ROLLBACK TO SAVEPOINT "index"');
    if ((e as { code?: unknown }).code !== '23505') throw e;
    const cols = index.columns.map(q).join(', ');
    const dup = await s.get(sql(`SELECT ${cols} FROM ${q(table)} GROUP BY ${cols} HAVING count(*) > 1 LIMIT 1`));
    const shown = dup === undefined ? '' : ` (for example ${index.columns.map((c) => `${c}=${JSON.stringify(dup[c])}`).join(', ')})`;
    throw new MigrationError(
      `Cannot create the unique index "${index.derivedName}": rows of "${table}" share values of (${index.columns.join(', ')})${shown}. ` +
        'The model declares these values unique (a unique property or an alternate key): remove the duplicates, or the declaration.',
    );
  }
}

/** An index definition's column list, without quotes: `CREATE INDEX ... ON t (a NULLS FIRST, "b")` gives `a NULLS FIRST, b`. */
const columnList = (definition: string): string => (/\(([^()]*)\)\s*$/.exec(definition)?.[1] ?? definition).replace(/"/g, '');

/**
 * Drops the indexes of `table` named like derived ones that the model no longer derives, or derives
 * with other columns or column order (an earlier version's key column with NULLS FIRST); gives their
 * names. Run before the model's indexes are created, so that such an index is created again.
 */
async function dropStaleIndexes(s: PostgresSession, table: string, wanted: readonly PostgresIndexDef[]): Promise<string[]> {
  const columns = new Map(wanted.map((i) => [i.name, columnList(i.sql)]));
  const derived = (name: string): boolean => derivedIndexPrefixes(table).some((prefix) => name.startsWith(prefix));
  const existing = await s.all(sql('SELECT "indexname", "indexdef" FROM pg_indexes WHERE "schemaname" = current_schema() AND "tablename" = $1', [table]));
  const stale = existing
    .filter((r) => derived(String(r['indexname'])) && columns.get(String(r['indexname'])) !== columnList(String(r['indexdef'])))
    .map((r) => String(r['indexname']));
  for (const name of stale) await s.exec(`DROP INDEX ${q(name)}`);
  return stale;
}

async function addForeignKeys(s: PostgresSession, model: EdmModel, type: EntityType): Promise<void> {
  const existing = new Set(
    (await s.all(sql("SELECT \"conname\" FROM pg_constraint WHERE \"contype\" = 'f' AND \"conrelid\" = to_regclass(quote_ident($1))", [type.table]))).map((r) => String(r['conname'])),
  );
  for (const fk of foreignKeyDefs(model, type)) {
    if (existing.has(fk.name)) continue;
    await s.exec('SAVEPOINT "fk"');
    try {
      await s.exec(fk.sql);
      await s.exec('RELEASE SAVEPOINT "fk"');
    } catch (e) {
      await s.exec('ROLLBACK TO SAVEPOINT "fk"');
      if ((e as { code?: unknown }).code !== '23503') throw e;
      throw new MigrationError(
        `Cannot add the foreign key of "${type.table}"."${fk.from}" to "${fk.table}": some rows reference ${fk.table} rows that do not exist. Remove or correct those rows first.`,
      );
    }
  }
}

/**
 * Stores the ETag of every row whose stored one is missing or stale (db/sqlite/sqlite-stored-etags.ts); rows per
 * table. Run by every migration and by every start-up whose schema is up to date (PostgresEngine.migrate),
 * as SQLite's start-up does: rows written by another program (a bulk load, psql) are read as fast as the
 * service's own from then on.
 */
export async function stampStoredEtags(s: PostgresSession, model: EdmModel): Promise<Record<string, number>> {
  const { version, etag, etagVersion } = HIDDEN_COLUMNS;
  const stamped: Record<string, number> = {};
  for (const type of model.entityTypes) {
    const n = await s.run(sql(`UPDATE ${q(type.table)} SET ${q(etag)} = odata_etag(${q(version)}), ${q(etagVersion)} = ${q(version)} WHERE ${q(etagVersion)} IS DISTINCT FROM ${q(version)}`));
    if (n > 0) stamped[type.table] = n;
  }
  return stamped;
}

/** The migration of the model's tables in a transaction the caller holds under the lock (underMigrationLock). */
export async function migrateIn(s: PostgresSession, model: EdmModel): Promise<MigrationReport> {
  await createPostgresFunctions(s);
  const report = { createdTables: [] as string[], addedColumns: [] as string[], droppedIndexes: [] as string[] };
  const ordered = [model.company, ...model.entityTypes.filter((t) => t !== model.company)];
  for (const type of ordered) {
    const existing = await tableColumns(s, type.table);
    if (existing.length === 0) {
      await s.exec(postgresCreateTableSql(model, type));
      report.createdTables.push(type.table);
      continue;
    }
    const have = new Set(existing);
    for (const col of postgresColumnDefs(model, type)) {
      if (have.has(col.name)) continue;
      if (!col.addable) {
        throw new MigrationError(
          `Cannot add column "${col.name}" to the existing table "${type.table}" (entity ${type.name}, ${type.source}): ` +
            `it is not nullable and has no constant default. Make it nullable, or give it "default": {"kind": "value", ...}.`,
        );
      }
      await s.exec(`ALTER TABLE ${q(type.table)} ADD COLUMN ${col.sql}`);
      report.addedColumns.push(`${type.table}.${col.name}`);
    }
  }
  // Foreign keys once every table exists (a key may reference a table created after its own).
  for (const type of ordered) await addForeignKeys(s, model, type);
  for (const type of ordered) {
    const indexes = postgresIndexDefs(model, type);
    report.droppedIndexes.push(...(await dropStaleIndexes(s, type.table, indexes)));
    for (const index of indexes) await createIndex(s, type.table, index);
  }
  const recountedCounters = await maintainPostgresRowCounters(s, model);
  await maintainSetCounts(s, model);
  const stampedEtags = await stampStoredEtags(s, model);
  const rebuiltEntityJson = await maintainPostgresEntityJson(s, model);
  return { ...report, recountedCounters, stampedEtags, rebuiltEntityJson };
}

/**
 * Runs `body` in one transaction holding the migration lock: instances that start together take turns,
 * and one that finds the work done does nothing.
 */
export function underMigrationLock<T>(db: PostgresDatabase, body: (s: PostgresSession) => Promise<T>): Promise<T> {
  return db.transaction(async (s) => {
    await s.get(sql('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]));
    return body(s);
  });
}

/** Creates or extends the tables of the model (see the file comment). */
export function migratePostgres(db: PostgresDatabase, model: EdmModel): Promise<MigrationReport> {
  return underMigrationLock(db, (s) => migrateIn(s, model));
}
