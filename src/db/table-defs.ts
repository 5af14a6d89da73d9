/**
 * The tables the model gives, whatever the engine: a type's stored and hidden columns, the foreign keys
 * its columns hold (containment cascades), and the indexes on keys, unique properties and every column a
 * navigation joins on. Each engine writes them in its own DDL (sqlite/sqlite-ddl.ts, postgres/postgres-ddl.ts).
 */
import { HIDDEN_COLUMNS, type EdmModel, type EntityType, type Property } from '../edm/model.js';
import { quoteIdentifier as q } from '../sql/quote-identifier.js';
import { rowCountersOf } from './row-counters.js';
import { sortsUniquely } from '../edm/unique-order.js';
import { keepsEntityJson } from '../edm/keeps-entity-json.js';

/** A column definition as it appears in CREATE TABLE and ALTER TABLE ADD COLUMN. */
export interface ColumnDef {
  readonly name: string;
  readonly sql: string;
  /** true when the column can be added to an existing table (nullable, or with a constant default). */
  readonly addable: boolean;
}

/**
 * The framework's hidden columns of a type's table, the same on every engine but for the type names
 * (`types`): row version, stored ETag and the version it was made for, related-row counters, row secret,
 * and the row's entity JSON where its type keeps it (keepsEntityJson).
 */
export function hiddenColumnDefs(type: EntityType, types: { readonly int64: string; readonly int32: string; readonly text: string }, quote: (name: string) => string): ColumnDef[] {
  const defs: ColumnDef[] = [
    { name: HIDDEN_COLUMNS.version, sql: `${quote(HIDDEN_COLUMNS.version)} ${types.int64} NOT NULL DEFAULT 0`, addable: true },
    { name: HIDDEN_COLUMNS.etag, sql: `${quote(HIDDEN_COLUMNS.etag)} ${types.text}`, addable: true },
    { name: HIDDEN_COLUMNS.etagVersion, sql: `${quote(HIDDEN_COLUMNS.etagVersion)} ${types.int64}`, addable: true },
  ];
  for (const c of rowCountersOf(type)) defs.push({ name: c.column, sql: `${quote(c.column)} ${types.int32} NOT NULL DEFAULT 0`, addable: true });
  if (type.secret !== undefined) defs.push({ name: HIDDEN_COLUMNS.secret, sql: `${quote(HIDDEN_COLUMNS.secret)} ${types.text}`, addable: true });
  if (keepsEntityJson(type)) defs.push({ name: HIDDEN_COLUMNS.entityJson, sql: `${quote(HIDDEN_COLUMNS.entityJson)} ${types.text}`, addable: true });
  return defs;
}

/** A foreign key held by a column: `column REFERENCES table(id) ON DELETE action`. */
export interface ForeignKey {
  readonly table: string;
  readonly column: string;
  readonly onDelete: 'CASCADE' | 'NO ACTION' | 'SET NULL';
}

/** Properties stored as columns (plain and media), in model order. */
export function storedProperties(type: EntityType): Property[] {
  return type.properties.filter((p) => p.storage.kind !== 'computed');
}

/** Foreign keys of a type's columns (by column): referential navigations and containment parents. */
export function foreignKeys(model: EdmModel, type: EntityType): Map<string, ForeignKey> {
  const fks = new Map<string, ForeignKey>();
  for (const nav of type.navigations) {
    const join = nav.joins[0];
    if (!nav.referential || join === undefined) continue;
    const action = nav.onTargetDelete === 'cascade' ? 'CASCADE' : nav.onTargetDelete === 'setNull' ? 'SET NULL' : 'NO ACTION';
    fks.set(join.sourceProperty, { table: nav.target.table, column: join.targetProperty, onDelete: action });
  }
  // A child contained in a parent is deleted with it, whatever its own back-navigation says.
  for (const parent of model.entityTypes) {
    for (const nav of parent.navigations) {
      const join = nav.joins[0];
      if (!nav.containsTarget || nav.target !== type || join === undefined || nav.joins.length !== 1) continue;
      if (join.sourceProperty !== parent.key.name) continue;
      fks.set(join.targetProperty, { table: parent.table, column: parent.key.name, onDelete: 'CASCADE' });
    }
  }
  return fks;
}

/** An index the model derives for a table. */
export interface IndexDef {
  readonly name: string;
  readonly unique: boolean;
  readonly columns: readonly string[];
  /** `CREATE [UNIQUE] INDEX IF NOT EXISTS ...` */
  readonly sql: string;
}

/** The prefixes of the names of the indexes the model derives for `table` (unique, plain). */
export const derivedIndexPrefixes = (table: string): readonly string[] => [`${table}_u_`, `${table}_ix_`];

/** How an engine's indexes hold rows (see `indexDefs`). */
export interface IndexOptions {
  /**
   * true when no index holds the rows of equal values in an order of their own, so an index for the
   * default order ends with the key (PostgreSQL). SQLite's indexes end with the rowid, which an
   * expansion breaks ties by (Dialect.rowOrder): a key after the order there put the rowid behind it,
   * and SQLite sorted each parent's lines again on every expansion.
   */
  readonly keyEndsOrder?: boolean;
}

/** The indexes of a type: key and unique values per company, alternate keys, join columns, line-number groups. */
export function indexDefs(model: EdmModel, type: EntityType, options: IndexOptions = {}): IndexDef[] {
  const scoped = type.scope === 'company';
  const prefix = scoped ? [HIDDEN_COLUMNS.company] : [];
  const out = new Map<string, IndexDef>();
  const uniqueColumns = new Set<string>();
  const add = (unique: boolean, cols: readonly string[]): void => {
    // A unique index serves every lookup and order a plain index on the same columns would.
    if (uniqueColumns.has(cols.join('\n'))) return;
    if (unique) uniqueColumns.add(cols.join('\n'));
    const name = `${derivedIndexPrefixes(type.table)[unique ? 0 : 1]}${cols.map((c) => c.replace(/^_/, '')).join('_')}`;
    out.set(name, { name, unique, columns: cols, sql: `CREATE ${unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${q(name)} ON ${q(type.table)}(${cols.map(q).join(', ')})` });
  };
  // No (company, key) index for lookups: the key is the primary key, unique across companies (a second
  // key index cost an insert about a fifth of its time). Sets ordered by key get one below, for order.
  for (const p of type.properties) if (p.unique && p !== type.key) add(true, [...prefix, p.name]);
  // An alternate key identifies one row (within the company), like the key.
  for (const key of type.alternateKeys) add(true, [...prefix, ...key.map((p) => p.name)]);
  // Every column a navigation joins on, on either side, is indexed (lookups, EXISTS, cascades).
  const fks = foreignKeys(model, type);
  for (const column of fks.keys()) add(false, [column]);
  for (const other of model.entityTypes) {
    for (const nav of other.navigations) {
      for (const j of nav.joins) {
        if (nav.source === type && j.sourceProperty !== type.key.name && !fks.has(j.sourceProperty)) add(false, [...prefix, j.sourceProperty]);
        if (nav.target === type && j.targetProperty !== type.key.name && !fks.has(j.targetProperty)) {
          const p = type.propertyByName.get(j.targetProperty);
          if (p !== undefined && !p.unique) add(false, [...prefix, j.targetProperty]);
        }
      }
    }
    for (const p of other.properties) {
      if (other === type && p.default?.kind === 'nextLineNo') add(false, [...prefix, p.default.groupBy, p.name]);
    }
  }
  // The model's own indexes (e.g. a property clients group by: a covering index makes a GROUP BY read no row).
  for (const props of type.indexes) add(false, [...prefix, ...props.map((p) => p.name)]);
  // A company's pages are read in the default order (else by key) straight from an index: one is added
  // when no index above starts with those columns. With `keyEndsOrder` it ends with the key where that
  // order is not unique (what the planners append, edm/unique-order.ts), and a plain index on the first
  // of its columns gives way to it (it serves the same lookups): without the key PostgreSQL sorted each
  // ECN's comments and BOM lines of an $expand again (an incremental sort per parent).
  if (scoped) {
    const byDefault = type.defaultOrderBy.length > 0 ? type.defaultOrderBy : [type.key.name];
    const keyAfter = options.keyEndsOrder === true && !byDefault.includes(type.key.name) && !sortsUniquely(type, new Set(byDefault));
    const order = [...prefix, ...byDefault, ...(keyAfter ? [type.key.name] : [])];
    if (![...out.values()].some((i) => order.every((c, n) => i.columns[n] === c))) {
      for (const [name, i] of out) if (!i.unique && i.columns.every((c, n) => order[n] === c)) out.delete(name);
      add(false, order);
    }
  }
  return [...out.values()];
}
