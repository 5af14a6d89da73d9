/**
 * What a start-up migration reports and how it refuses, on every engine (sqlite/sqlite-migrate.ts,
 * postgres/postgres-migrate.ts bring a database in line with the model).
 */

/** A change the model asks for that cannot be applied without losing data or guessing values. */
export class MigrationError extends Error {}

/** What `migrate` did, for the start-up log. */
export interface MigrationReport {
  readonly createdTables: string[];
  readonly addedColumns: string[];
  /** Indexes derived by an earlier model or version and no longer derived (e.g. a unique index now covers a plain one's columns). */
  readonly droppedIndexes: string[];
  /** Related-row counters (re)built from the rows: new, or changed in the model. */
  readonly recountedCounters: string[];
  /** Rows per table whose stored ETag was missing or stale (written by something else than this service). */
  readonly stampedEtags: Record<string, number>;
  /** Tables whose rows' stored entity JSON was built again (a new or changed definition). */
  readonly rebuiltEntityJson?: string[];
}
