/**
 * The SQLite schema derived from the model (table-defs.ts says what it holds): one STRICT table per
 * entity type; booleans are stored as 0/1, decimals as REAL, media as BLOB.
 */
import { HIDDEN_COLUMNS, type EdmModel, type EntityType, type Property } from '../../edm/model.js';
import { storageClass, type StorageClass } from '../column-types.js';
import { foreignKeys, hiddenColumnDefs, storedProperties, type ColumnDef } from '../table-defs.js';
import { sqliteDialect } from './sqlite-dialect.js';

const q = (name: string): string => sqliteDialect.quoteIdentifier(name);

const SQLITE_TYPES = { text: 'TEXT', boolean: 'INTEGER', int32: 'INTEGER', int64: 'INTEGER', double: 'REAL', bytes: 'BLOB' } as const;

/** SQLite column type of a stored property. */
export function sqliteColumnType(p: Property): (typeof SQLITE_TYPES)[StorageClass] {
  return SQLITE_TYPES[storageClass(p)];
}

function defaultClause(p: Property): string {
  const d = p.default;
  if (d === undefined || d.kind !== 'value') return '';
  if (typeof d.value === 'number') return ` DEFAULT ${d.value}`;
  if (typeof d.value === 'boolean') return ` DEFAULT ${d.value ? 1 : 0}`;
  return ` DEFAULT '${d.value.replace(/'/g, "''")}'`;
}

/** Column definitions of a type, hidden columns included. */
export function columnDefs(model: EdmModel, type: EntityType): ColumnDef[] {
  const fks = foreignKeys(model, type);
  const defs: ColumnDef[] = [];
  for (const p of storedProperties(type)) {
    const isKey = p === type.key;
    let sql = `${q(p.name)} ${sqliteColumnType(p)}`;
    if (isKey) sql += ' NOT NULL PRIMARY KEY';
    else if (!p.nullable && p.storage.kind === 'column') sql += ' NOT NULL';
    const dflt = defaultClause(p);
    sql += dflt;
    const fk = fks.get(p.name);
    if (fk !== undefined) sql += ` REFERENCES ${q(fk.table)}(${q(fk.column)}) ON DELETE ${fk.onDelete}`;
    const addable = !isKey && (p.nullable || p.storage.kind !== 'column' || dflt !== '') && (fk === undefined || p.nullable);
    defs.push({ name: p.name, sql, addable });
    if (isKey && type.scope === 'company') {
      defs.push({
        name: HIDDEN_COLUMNS.company,
        sql: `${q(HIDDEN_COLUMNS.company)} TEXT NOT NULL REFERENCES ${q(model.company.table)}(${q(model.company.key.name)}) ON DELETE CASCADE`,
        addable: false,
      });
    }
  }
  defs.push(...hiddenColumnDefs(type, { int64: 'INTEGER', int32: 'INTEGER', text: 'TEXT' }, q));
  return defs;
}

/** `CREATE TABLE` for a type. */
export function createTableSql(model: EdmModel, type: EntityType): string {
  const cols = columnDefs(model, type).map((c) => `  ${c.sql}`);
  return `CREATE TABLE ${q(type.table)} (\n${cols.join(',\n')}\n) STRICT`;
}
