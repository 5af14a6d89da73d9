/**
 * Stored ETags. Every write stamps a row with a new version and the ETag text of that version
 * (store/insert-entity.ts stampRow), so reads copy the text instead of computing it: computing it in
 * SQLite is a JavaScript function call per row (odata_etag), nearly a third of a read of a page of
 * ECNs with their comments and BOM lines. A read trusts `_etag` only while `_etagOf` equals
 * `_version` and computes it otherwise, so a writer that knows nothing of it (an import, a
 * sqlite3 shell, an older version of this service) can make a read slower but never wrong.
 * At start-up the rows such writers left are stamped (`stampStoredEtags`).
 */
import { HIDDEN_COLUMNS, type EdmModel } from '../../edm/model.js';
import { sqliteDialect } from './sqlite-dialect.js';
import type { Database } from './sqlite-database.js';

const q = (name: string): string => sqliteDialect.quoteIdentifier(name);

/** Stores the ETag of every row whose stored one is missing or stale; returns how many rows per table. */
export function stampStoredEtags(db: Database, model: EdmModel): Record<string, number> {
  const { version, etag, etagVersion } = HIDDEN_COLUMNS;
  const stamped: Record<string, number> = {};
  for (const type of model.entityTypes) {
    const n = db.raw
      .prepare(`UPDATE ${q(type.table)} SET ${q(etag)} = odata_etag(${q(version)}), ${q(etagVersion)} = ${q(version)} WHERE ${q(etagVersion)} IS NOT ${q(version)}`)
      .run().changes;
    if (n > 0) stamped[type.table] = n;
  }
  return stamped;
}
