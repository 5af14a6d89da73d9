/**
 * The related-row counters of db/row-counters.ts on PostgreSQL: one plpgsql trigger function per
 * counter on the target table (insert, delete, and updates that move a row to another source), kept in
 * the same `_rowCounters` registry so that a changed definition is recreated and recounted at start-up.
 */
import { HIDDEN_COLUMNS, type EdmModel } from '../../edm/model.js';
import { rowCountersOf, type RowCounter } from '../row-counters.js';
import { objectName, q } from './postgres-ddl.js';
import type { PostgresSession } from './postgres-database.js';

function sameCompany(c: RowCounter): boolean {
  return c.nav.source.scope === 'company' && c.nav.target.scope === 'company';
}

/** `source.x = <row>.y AND ...` for the target row NEW or OLD. */
function matchSource(c: RowCounter, row: 'NEW' | 'OLD'): string {
  const parts = c.nav.joins.map((j) => `${q(j.sourceProperty)} = ${row}.${q(j.targetProperty)}`);
  if (sameCompany(c)) parts.push(`${q(HIDDEN_COLUMNS.company)} = ${row}.${q(HIDDEN_COLUMNS.company)}`);
  return parts.join(' AND ');
}

/** Names of a counter's function and triggers. */
function names(table: string, column: string): { fn: string; rows: string; moves: string } {
  return { fn: objectName(`${table}${column}_count`), rows: objectName(`${table}${column}_rows`), moves: objectName(`${table}${column}_moves`) };
}

/** The statements that create a counter's function and triggers. */
export function postgresCounterTriggers(c: RowCounter): string[] {
  const source = q(c.nav.source.table);
  const target = q(c.nav.target.table);
  const col = q(c.column);
  const n = names(c.nav.source.table, c.column);
  const add = (row: 'NEW' | 'OLD', delta: '+' | '-'): string => `UPDATE ${source} SET ${col} = ${col} ${delta} 1 WHERE ${matchSource(c, row)};`;
  const moved = [...c.nav.joins.map((j) => j.targetProperty), ...(sameCompany(c) ? [HIDDEN_COLUMNS.company] : [])];
  return [
    `CREATE OR REPLACE FUNCTION ${q(n.fn)}() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n` +
      `  IF TG_OP IN ('DELETE', 'UPDATE') THEN ${add('OLD', '-')} END IF;\n` +
      `  IF TG_OP IN ('INSERT', 'UPDATE') THEN ${add('NEW', '+')} END IF;\n` +
      '  RETURN NULL;\nEND $$',
    `CREATE TRIGGER ${q(n.rows)} AFTER INSERT OR DELETE ON ${target} FOR EACH ROW EXECUTE FUNCTION ${q(n.fn)}()`,
    `CREATE TRIGGER ${q(n.moves)} AFTER UPDATE OF ${moved.map(q).join(', ')} ON ${target} FOR EACH ROW ` +
      `WHEN (${moved.map((m) => `OLD.${q(m)} IS DISTINCT FROM NEW.${q(m)}`).join(' OR ')}) EXECUTE FUNCTION ${q(n.fn)}()`,
  ];
}

/** Sets every count from the rows. */
function recountSql(c: RowCounter): string {
  const source = q(c.nav.source.table);
  const conditions = c.nav.joins.map((j) => `"r".${q(j.targetProperty)} = ${source}.${q(j.sourceProperty)}`);
  if (sameCompany(c)) conditions.push(`"r".${q(HIDDEN_COLUMNS.company)} = ${source}.${q(HIDDEN_COLUMNS.company)}`);
  return `UPDATE ${source} SET ${q(c.column)} = (SELECT count(*) FROM ${q(c.nav.target.table)} AS "r" WHERE ${conditions.join(' AND ')})`;
}

const REGISTRY = '_rowCounters';

/**
 * Creates the function and triggers of new or changed counters and recounts them; drops those of
 * counters the model no longer has (their columns stay, unused). Runs inside the migration's
 * transaction, after the tables exist. Returns the counters it recounted, as `table.column`.
 */
export async function maintainPostgresRowCounters(s: PostgresSession, model: EdmModel): Promise<string[]> {
  await s.exec(`CREATE TABLE IF NOT EXISTS ${q(REGISTRY)} ("table" text NOT NULL, "column" text NOT NULL, "definition" text NOT NULL, PRIMARY KEY ("table", "column"))`);
  const rows = (await s.all({ sql: `SELECT "table", "column", "definition" FROM ${q(REGISTRY)}`, params: [] })) as { table: string; column: string; definition: string }[];
  const stored = new Map(rows.map((r) => [`${r.table}\u0000${r.column}`, r]));
  const drop = async (table: string, column: string, target: string | undefined): Promise<void> => {
    const n = names(table, column);
    if (target !== undefined) {
      for (const t of [n.rows, n.moves]) await s.exec(`DROP TRIGGER IF EXISTS ${q(t)} ON ${q(target)}`);
    }
    // CASCADE drops the triggers with the function, wherever the target table was.
    await s.exec(`DROP FUNCTION IF EXISTS ${q(n.fn)}() CASCADE`);
  };
  const recounted: string[] = [];
  for (const type of model.entityTypes) {
    for (const c of rowCountersOf(type)) {
      const statements = postgresCounterTriggers(c);
      const definition = statements.join(';\n');
      const key = `${type.table}\u0000${c.column}`;
      const before = stored.get(key);
      stored.delete(key);
      if (before?.definition === definition) continue;
      await drop(type.table, c.column, c.nav.target.table);
      for (const sql of statements) await s.exec(sql);
      await s.exec(recountSql(c));
      await s.run({
        sql: `INSERT INTO ${q(REGISTRY)} ("table", "column", "definition") VALUES ($1, $2, $3) ON CONFLICT ("table", "column") DO UPDATE SET "definition" = EXCLUDED."definition"`,
        params: [type.table, c.column, definition],
      });
      recounted.push(`${type.table}.${c.column}`);
    }
  }
  for (const gone of stored.values()) {
    await drop(gone.table, gone.column, undefined);
    await s.run({ sql: `DELETE FROM ${q(REGISTRY)} WHERE "table" = $1 AND "column" = $2`, params: [gone.table, gone.column] });
  }
  return recounted;
}
