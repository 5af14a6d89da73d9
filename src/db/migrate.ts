/**
 * Brings a database in line with the model at start-up: creates missing tables, adds missing columns
 * (nullable ones, or ones with a constant default), creates missing indexes. Never drops anything, so
 * a restart with a new entity or field keeps every row. Then the related-row counters (row-counters.ts)
 * and the stored ETags (stored-etags.ts).
 */
import type { EdmModel } from '../edm/model.js';
import { columnDefs, createIndexSql, createTableSql } from './ddl.js';
import type { Database } from './database.js';
import { maintainRowCounters } from './row-counters.js';
import { stampStoredEtags } from './stored-etags.js';

/** A change the model asks for that cannot be applied without losing data or guessing values. */
export class MigrationError extends Error {}

/** What `migrate` did, for the start-up log. */
export interface MigrationReport {
  readonly createdTables: string[];
  readonly addedColumns: string[];
  /** Related-row counters (re)built from the rows: new, or changed in the model. */
  readonly recountedCounters: string[];
  /** Rows per table whose stored ETag was missing or stale (written by something else than this service). */
  readonly stampedEtags: Record<string, number>;
}

/** Creates or extends the tables of the model; all in one transaction. */
export function migrate(db: Database, model: EdmModel): MigrationReport {
  let stampedEtags: Record<string, number> = {};
  const recountedCounters: string[] = [];
  const report = { createdTables: [] as string[], addedColumns: [] as string[] };
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
      for (const sql of createIndexSql(model, type)) db.exec(sql);
    }
    recountedCounters.push(...maintainRowCounters(db, model));
    stampedEtags = stampStoredEtags(db, model);
  });
  return { ...report, recountedCounters, stampedEtags };
}
