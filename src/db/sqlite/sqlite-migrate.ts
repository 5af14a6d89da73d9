/**
 * Brings a SQLite database in line with the model at start-up: creates missing tables, adds missing columns
 * (nullable ones, or ones with a constant default), creates missing indexes. Never drops a table or a
 * column, so a restart with a new entity or field keeps every row; the only thing dropped is an index
 * this code derived earlier and the model no longer asks for (it holds no data, every write would keep
 * paying for it, and a unique one would enforce what the model no longer says). Then the related-row
 * counters (sqlite-row-counters.ts), the stored ETags (sqlite-stored-etags.ts) and the stored entity JSON
 * (sqlite/sqlite-entity-json.ts).
 */
import type { EdmModel } from '../../edm/model.js';
import { derivedIndexPrefixes, indexDefs, type IndexDef } from '../table-defs.js';
import { columnDefs, createTableSql } from './sqlite-ddl.js';
import { MigrationError, type MigrationReport } from '../migration.js';
import type { Database } from './sqlite-database.js';
import { sqliteDialect } from './sqlite-dialect.js';
import { maintainRowCounters } from './sqlite-row-counters.js';
import { stampStoredEtags } from './sqlite-stored-etags.js';
import { maintainSqliteEntityJson } from './sqlite-entity-json.js';

/** Creates an index; a unique one the rows already violate stops with the duplicated values named. */
function createIndex(db: Database, table: string, index: IndexDef): void {
  try {
    db.exec(index.sql);
  } catch (e) {
    if ((e as { code?: unknown }).code !== 'SQLITE_CONSTRAINT_UNIQUE') throw e;
    const q = sqliteDialect.quoteIdentifier;
    const cols = index.columns.map(q).join(', ');
    const dup = db.raw.prepare(`SELECT ${cols} FROM ${q(table)} GROUP BY ${cols} HAVING count(*) > 1 LIMIT 1`).get() as Record<string, unknown> | undefined;
    const shown = dup === undefined ? '' : ` (for example ${index.columns.map((c) => `${c}=${JSON.stringify(dup[c])}`).join(', ')})`;
    throw new MigrationError(
      `Cannot create the unique index "${index.name}": rows of "${table}" share values of (${index.columns.join(', ')})${shown}. ` +
        'The model declares these values unique (a unique property or an alternate key): remove the duplicates, or the declaration.',
    );
  }
}

/** Drops the indexes of `table` named like derived ones that the model no longer derives; gives their names. */
function dropStaleIndexes(db: Database, table: string, wanted: readonly IndexDef[]): string[] {
  const keep = new Set(wanted.map((i) => i.name));
  const derived = (name: string): boolean => derivedIndexPrefixes(table).some((prefix) => name.startsWith(prefix));
  const existing = db.raw.prepare(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`).all(table) as { name: string }[];
  const stale = existing.map((i) => i.name).filter((name) => derived(name) && !keep.has(name));
  for (const name of stale) db.exec(`DROP INDEX ${sqliteDialect.quoteIdentifier(name)}`);
  return stale;
}

/** Creates or extends the tables of the model; all in one transaction. */
export function migrate(db: Database, model: EdmModel): MigrationReport {
  let stampedEtags: Record<string, number> = {};
  const recountedCounters: string[] = [];
  const rebuiltEntityJson: string[] = [];
  const report = { createdTables: [] as string[], addedColumns: [] as string[], droppedIndexes: [] as string[] };
  const ordered = [model.company, ...model.entityTypes.filter((t) => t !== model.company)];
  db.transaction(() => {
    for (const type of ordered) {
      const existing = db.raw.prepare(`SELECT name FROM pragma_table_info(?)`).all(type.table) as { name: string }[];
      if (existing.length === 0) {
        db.exec(createTableSql(model, type));
        report.createdTables.push(type.table);
      } else {
        const have = new Set(existing.map((c) => c.name));
        for (const col of columnDefs(model, type)) {
          if (have.has(col.name)) continue;
          if (!col.addable) {
            throw new MigrationError(
              `Cannot add column "${col.name}" to the existing table "${type.table}" (entity ${type.name}, ${type.source}): ` +
                `it is not nullable and has no constant default. Make it nullable, or give it "default": {"kind": "value", ...}.`,
            );
          }
          db.exec(`ALTER TABLE "${type.table}" ADD COLUMN ${col.sql}`);
          report.addedColumns.push(`${type.table}.${col.name}`);
        }
      }
      const indexes = indexDefs(model, type);
      for (const index of indexes) createIndex(db, type.table, index);
      report.droppedIndexes.push(...dropStaleIndexes(db, type.table, indexes));
    }
    recountedCounters.push(...maintainRowCounters(db, model));
    stampedEtags = stampStoredEtags(db, model);
    rebuiltEntityJson.push(...maintainSqliteEntityJson(db, model));
  });
  return { ...report, recountedCounters, stampedEtags, rebuiltEntityJson };
}
