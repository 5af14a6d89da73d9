/**
 * SQLite's triggers for the counts of related rows kept in hidden columns of the source table, for `exists` computed properties
 * (bomExists: the ECN has BOM lines). A read then tests a column instead of running a correlated
 * EXISTS per row: two such properties cost over a third of a page of ECNs. Triggers on the target
 * table keep the count on insert, delete (foreign-key cascades included) and on updates that move a
 * row to another source; they live in the database, so every connection's writes are counted, not
 * only the service's.
 *
 * At start-up `maintainRowCounters` (re)creates the triggers of each counter whose definition changed
 * or is new, and then recounts it from the rows (so a new counter on an old database starts right).
 */
import { HIDDEN_COLUMNS, type EdmModel } from '../../edm/model.js';
import { sqliteDialect } from './sqlite-dialect.js';
import type { Database } from './sqlite-database.js';
import { rowCountersOf, type RowCounter } from '../row-counters.js';

const q = (name: string): string => sqliteDialect.quoteIdentifier(name);

/** `source.x = <row>.y AND ...` for the target row NEW or OLD. */
function matchSource(c: RowCounter, row: 'NEW' | 'OLD'): string {
  const parts = c.nav.joins.map((j) => `${q(j.sourceProperty)} = ${row}.${q(j.targetProperty)}`);
  if (sameCompany(c)) parts.push(`${q(HIDDEN_COLUMNS.company)} = ${row}.${q(HIDDEN_COLUMNS.company)}`);
  return parts.join(' AND ');
}

function sameCompany(c: RowCounter): boolean {
  return c.nav.source.scope === 'company' && c.nav.target.scope === 'company';
}

function triggerName(c: RowCounter, event: 'insert' | 'delete' | 'update'): string {
  return `${c.nav.source.table}${c.column}_${event}`;
}

/** The CREATE TRIGGER statements of a counter. */
export function counterTriggers(c: RowCounter): string[] {
  const source = q(c.nav.source.table);
  const target = q(c.nav.target.table);
  const col = q(c.column);
  const add = (row: 'NEW' | 'OLD', delta: '+' | '-'): string => `UPDATE ${source} SET ${col} = ${col} ${delta} 1 WHERE ${matchSource(c, row)};`;
  const moved = [...c.nav.joins.map((j) => j.targetProperty), ...(sameCompany(c) ? [HIDDEN_COLUMNS.company] : [])];
  return [
    `CREATE TRIGGER ${q(triggerName(c, 'insert'))} AFTER INSERT ON ${target} BEGIN ${add('NEW', '+')} END`,
    `CREATE TRIGGER ${q(triggerName(c, 'delete'))} AFTER DELETE ON ${target} BEGIN ${add('OLD', '-')} END`,
    `CREATE TRIGGER ${q(triggerName(c, 'update'))} AFTER UPDATE OF ${moved.map(q).join(', ')} ON ${target} ` +
      `WHEN ${moved.map((m) => `OLD.${q(m)} IS NOT NEW.${q(m)}`).join(' OR ')} BEGIN ${add('OLD', '-')} ${add('NEW', '+')} END`,
  ];
}

/** Sets every count from the rows. */
export function recountSql(c: RowCounter): string {
  const source = q(c.nav.source.table);
  const conditions = c.nav.joins.map((j) => `"r".${q(j.targetProperty)} = ${source}.${q(j.sourceProperty)}`);
  if (sameCompany(c)) conditions.push(`"r".${q(HIDDEN_COLUMNS.company)} = ${source}.${q(HIDDEN_COLUMNS.company)}`);
  return `UPDATE ${source} SET ${q(c.column)} = (SELECT count(*) FROM ${q(c.nav.target.table)} AS "r" WHERE ${conditions.join(' AND ')})`;
}

const REGISTRY = '_rowCounters';

/**
 * Creates the triggers of new or changed counters and recounts them; drops the triggers of counters
 * the model no longer has (their columns stay, unused). Runs inside migrate's transaction, after the
 * tables exist. Returns the counters it recounted, as `table.column`.
 */
export function maintainRowCounters(db: Database, model: EdmModel): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS ${q(REGISTRY)} ("table" TEXT NOT NULL, "column" TEXT NOT NULL, "definition" TEXT NOT NULL, PRIMARY KEY ("table", "column")) STRICT`);
  const stored = new Map(
    (db.raw.prepare(`SELECT "table", "column", "definition" FROM ${q(REGISTRY)}`).all() as { table: string; column: string; definition: string }[]).map((r) => [`${r.table}\u0000${r.column}`, r]),
  );
  const dropTriggers = (table: string, column: string): void => {
    for (const event of ['insert', 'delete', 'update']) db.exec(`DROP TRIGGER IF EXISTS ${q(`${table}${column}_${event}`)}`);
  };
  const recounted: string[] = [];
  for (const type of model.entityTypes) {
    for (const c of rowCountersOf(type)) {
      const triggers = counterTriggers(c);
      const definition = triggers.join(';\n');
      const key = `${type.table}\u0000${c.column}`;
      const before = stored.get(key);
      stored.delete(key);
      if (before?.definition === definition) continue;
      dropTriggers(type.table, c.column);
      for (const sql of triggers) db.exec(sql);
      db.exec(recountSql(c));
      db.raw.prepare(`INSERT OR REPLACE INTO ${q(REGISTRY)} ("table", "column", "definition") VALUES (?, ?, ?)`).run(type.table, c.column, definition);
      recounted.push(`${type.table}.${c.column}`);
    }
  }
  for (const gone of stored.values()) {
    dropTriggers(gone.table, gone.column);
    db.raw.prepare(`DELETE FROM ${q(REGISTRY)} WHERE "table" = ? AND "column" = ?`).run(gone.table, gone.column);
  }
  return recounted;
}
