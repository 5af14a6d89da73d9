/**
 * The PostgreSQL schema derived from the model, with SQLite's stored forms (db/column-types.ts): text
 * in code-point order (COLLATE "C", as SQLite's BINARY), booleans as smallint 0/1, decimals and doubles
 * as double precision, media as bytea; the same hidden columns, keys and indexes as db/table-defs.ts. Foreign
 * keys are separate constraints, added once every table exists (PostgreSQL, unlike SQLite, checks
 * that a referenced table exists). Index columns put NULLs first, the order the service reads in.
 */
import { createHash } from 'node:crypto';
import { HIDDEN_COLUMNS, type EdmModel, type EntityType, type Property } from '../../edm/model.js';
import { storageClass, type StorageClass } from '../column-types.js';
import { foreignKeys, hiddenColumnDefs, indexDefs, storedProperties, type ColumnDef, type ForeignKey } from '../table-defs.js';
import { postgresDialect } from './postgres-dialect.js';

/** Quotes an identifier. */
export const q = (name: string): string => postgresDialect.quoteIdentifier(name);

/** The longest identifier PostgreSQL keeps (NAMEDATALEN - 1 bytes). */
const MAX_NAME_BYTES = 63;

/** `name`, or when PostgreSQL would cut it, its start and a hash of the whole (distinct names stay distinct). */
export function objectName(name: string): string {
  if (Buffer.byteLength(name) <= MAX_NAME_BYTES) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  let head = name.slice(0, MAX_NAME_BYTES - 9);
  while (Buffer.byteLength(head) > MAX_NAME_BYTES - 9) head = head.slice(0, -1);
  return `${head}_${hash}`;
}

/** Text in code-point order, whatever the database's default collation. */
const TEXT = 'text COLLATE "C"';

const POSTGRES_TYPES: Record<StorageClass, string> = { text: TEXT, boolean: 'smallint', int32: 'integer', int64: 'bigint', double: 'double precision', bytes: 'bytea' };

/** PostgreSQL column type of a stored property (booleans 0/1 and decimals as doubles, as SQLite stores them). */
export function postgresColumnType(p: Property): string {
  return POSTGRES_TYPES[storageClass(p)];
}

function defaultClause(p: Property): string {
  const d = p.default;
  if (d === undefined || d.kind !== 'value') return '';
  if (typeof d.value === 'number') return ` DEFAULT ${d.value}`;
  if (typeof d.value === 'boolean') return ` DEFAULT ${d.value ? 1 : 0}`;
  return ` DEFAULT '${d.value.replace(/'/g, "''")}'`;
}

/** A foreign key constraint of a table. */
export interface ForeignKeyDef extends ForeignKey {
  readonly name: string;
  /** The referencing column. */
  readonly from: string;
  /** `ALTER TABLE ... ADD CONSTRAINT ...` */
  readonly sql: string;
}

/** The foreign keys of a type's table: referential navigations, containment parents, the owning company. */
export function foreignKeyDefs(model: EdmModel, type: EntityType): ForeignKeyDef[] {
  const fks = [...foreignKeys(model, type)].map(([from, fk]) => ({ from, ...fk }));
  if (type.scope === 'company') fks.push({ from: HIDDEN_COLUMNS.company, table: model.company.table, column: model.company.key.name, onDelete: 'CASCADE' });
  return fks.map((fk) => {
    const name = objectName(`${type.table}_fk_${fk.from.replace(/^_/, '')}`);
    return { ...fk, name, sql: `ALTER TABLE ${q(type.table)} ADD CONSTRAINT ${q(name)} FOREIGN KEY (${q(fk.from)}) REFERENCES ${q(fk.table)}(${q(fk.column)}) ON DELETE ${fk.onDelete}` };
  });
}

/** Column definitions of a type, hidden columns included (foreign keys apart: foreignKeyDefs). */
export function postgresColumnDefs(model: EdmModel, type: EntityType): ColumnDef[] {
  const fks = foreignKeys(model, type);
  const defs: ColumnDef[] = [];
  for (const p of storedProperties(type)) {
    const isKey = p === type.key;
    let sql = `${q(p.name)} ${postgresColumnType(p)}`;
    if (isKey) sql += ' NOT NULL PRIMARY KEY';
    else if (!p.nullable && p.storage.kind === 'column') sql += ' NOT NULL';
    const dflt = defaultClause(p);
    sql += dflt;
    const addable = !isKey && (p.nullable || p.storage.kind !== 'column' || dflt !== '') && (!fks.has(p.name) || p.nullable);
    defs.push({ name: p.name, sql, addable });
    if (isKey && type.scope === 'company') defs.push({ name: HIDDEN_COLUMNS.company, sql: `${q(HIDDEN_COLUMNS.company)} ${TEXT} NOT NULL`, addable: false });
  }
  defs.push(...hiddenColumnDefs(type, { int64: 'bigint', int32: 'integer', text: 'text' }, q));
  return defs;
}

/** `CREATE TABLE` for a type (without its foreign keys). */
export function postgresCreateTableSql(model: EdmModel, type: EntityType): string {
  const cols = postgresColumnDefs(model, type).map((c) => `  ${c.sql}`);
  return `CREATE TABLE ${q(type.table)} (\n${cols.join(',\n')}\n)`;
}

/** An index of a table as PostgreSQL creates it. */
export interface PostgresIndexDef {
  /** The name db/table-defs.ts derives (what the model asks for)... */
  readonly derivedName: string;
  /** ...and the name in the database (shortened past 63 bytes). */
  readonly name: string;
  readonly unique: boolean;
  readonly columns: readonly string[];
  readonly sql: string;
}

/**
 * The indexes of a type (db/table-defs.ts indexDefs), each column with NULLs first (SQLite's order, which
 * the queries' ORDER BY asks for) but the key: the planner appends the key, which is never NULL, as
 * plain `ASC` (OrderItem.notNull), and PostgreSQL does not match `ASC` to a `NULLS FIRST` column even
 * where the column holds no NULL (it sorted each ECN's comments of an $expand again by their id).
 */
export function postgresIndexDefs(model: EdmModel, type: EntityType): PostgresIndexDef[] {
  return indexDefs(model, type, { keyEndsOrder: true }).map((i) => {
    const name = objectName(i.name);
    const cols = i.columns.map((c) => (c === type.key.name ? q(c) : `${q(c)} NULLS FIRST`)).join(', ');
    return { derivedName: i.name, name, unique: i.unique, columns: i.columns, sql: `CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${q(name)} ON ${q(type.table)} (${cols})` };
  });
}
