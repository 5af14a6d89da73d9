/**
 * OData JSON of entities written by the database (JSON Format §4, §8, odata.metadata=minimal or none):
 * one text per row with exactly the members, member order and value spellings of
 * serialize/entity-json.ts, so reads concatenate row texts instead of turning rows into objects and
 * back (no per-row work in JavaScript). Expanded navigations are spliced in as text, never re-parsed.
 * Formats the database cannot write byte-identically (metadata=full, media links of entities with
 * string keys) stay with the JavaScript writer: see `sqlJsonSupported`.
 */
import { HIDDEN_COLUMNS, VERSION_ALIAS, type EntityType, type Property } from '../edm/model.js';
import { keepsEntityJson } from '../edm/keeps-entity-json.js';
import type { JsonFormat } from '../core/format.js';
import type { EntityLinkBase } from '../serialize/entity-json.js';
import { param } from '../sql/build.js';
import type { Dialect, LateralJoins } from '../sql/dialect.js';
import type { SelectColumn, SqlExpr } from '../sql/nodes.js';
import { assertNever } from '../util/assert-never.js';

/** How entity JSON is written by the database. */
export interface SqlJsonOptions {
  /** The dialect that builds the JSON. */
  readonly dialect: Dialect;
  readonly metadata: 'minimal' | 'none';
  readonly links: EntityLinkBase;
  /** IEEE754Compatible=true: Edm.Int64, Edm.Decimal and counts are JSON strings (JSON Format §3.2). */
  readonly ieee754Compatible: boolean;
  /**
   * Build every object from its columns, never copy a stored one (EngineCapabilities.storedEntityJson): for the
   * stored JSON's own definition (db/postgres/postgres-entity-json.ts).
   */
  readonly build?: true;
}

/** An expanded navigation of a row, already JSON text (`[...]`, an object, or NULL). */
export interface JsonExpansion {
  readonly name: string;
  readonly value: SqlExpr;
  /** `<name>@odata.count`, when `$count=true` was nested. */
  readonly count?: SqlExpr;
}

/** An expanded navigation's target and its nested expansions (an ExpandPlan), for `sqlJsonSupported`. */
export interface ExpansionShape {
  readonly nav: { readonly target: EntityType };
  readonly select?: ReadonlySet<string>;
  readonly expand: readonly ExpansionShape[];
}

/** The metadata level the database writes for `format`, or undefined when the JavaScript writer must. */
export function sqlJsonMetadata(format: JsonFormat): SqlJsonOptions['metadata'] | undefined {
  return format.metadata === 'full' ? undefined : format.metadata;
}

function included(p: Property, type: EntityType, select: ReadonlySet<string> | undefined): boolean {
  return select === undefined || select.has(p.name) || p === type.key;
}

/** Keys whose URL literal is the stored text itself (context-url.ts keyLiteral: bare GUIDs and numbers). */
function bareKey(type: EntityType): boolean {
  const t = type.key.type;
  return t.kind === 'primitive' && (t.name === 'Edm.Guid' || t.name === 'Edm.Int32' || t.name === 'Edm.Int64');
}

/** true when the database can write the entities of `type` (and of its expansions) in `metadata`. */
export function sqlJsonSupported(type: EntityType, select: ReadonlySet<string> | undefined, expand: readonly ExpansionShape[], metadata: SqlJsonOptions['metadata']): boolean {
  const media = type.properties.some((p) => p.storage.kind === 'media' && included(p, type, select));
  if (media && metadata === 'minimal' && !bareKey(type)) return false;
  return expand.every((e) => sqlJsonSupported(e.nav.target, e.select, e.expand, metadata));
}

/** A property whose JSON value IEEE754Compatible=true spells otherwise (as a string). */
function ieee754Sensitive(p: Property): boolean {
  return p.type.kind === 'primitive' && (p.type.name === 'Edm.Int64' || p.type.name === 'Edm.Decimal');
}

/** true when the JSON a row keeps is the object asked for: minimal metadata, every property, default number spellings. */
function storedJsonServes(type: EntityType, opts: SqlJsonOptions, select: ReadonlySet<string> | undefined): boolean {
  if (!opts.dialect.capabilities.storedEntityJson || opts.build === true || opts.metadata !== 'minimal' || !keepsEntityJson(type)) return false;
  if (select !== undefined && !type.properties.every((p) => included(p, type, select))) return false;
  return !opts.ieee754Compatible || !type.properties.some(ieee754Sensitive);
}

/** A property value as a JSON member value, spelled as storedToJson + JSON.stringify spell it. */
function valueExpr(d: Dialect, p: Property, e: SqlExpr, ieee754Compatible: boolean): SqlExpr {
  if (p.type.kind === 'enum') return e;
  const name = p.type.name;
  switch (name) {
    case 'Edm.Boolean':
      return d.jsonBoolean(e);
    case 'Edm.Decimal':
      return d.jsonNumber(e, false, ieee754Compatible);
    case 'Edm.Int64':
      return ieee754Compatible ? { kind: 'cast', operand: e, type: 'TEXT' } : e;
    case 'Edm.Double':
      return d.jsonNumber(e, true);
    case 'Edm.Guid':
    case 'Edm.String':
    case 'Edm.Int32':
    case 'Edm.Date':
    case 'Edm.DateTimeOffset':
    case 'Edm.TimeOfDay':
    case 'Edm.Stream':
      return e;
    default:
      return assertNever(name, 'EDM type');
  }
}

/** The ETag of a row: its stored text (db/sqlite/sqlite-stored-etags.ts) when the version is a table column, as it is in reads. */
function etagExpr(d: Dialect, version: SqlExpr): SqlExpr {
  if (version.kind !== 'column') return d.rowEtag(version);
  const sibling = (column: string): SqlExpr => ({ kind: 'column', table: version.table, column });
  return d.rowEtag(version, { etag: sibling(HIDDEN_COLUMNS.etag), etagVersion: sibling(HIDDEN_COLUMNS.etagVersion) });
}

/**
 * A member spliced into an entity's JSON text before its closing brace: a text, or an SQL value
 * whose text is JSON (never NULL).
 */
export type JsonPart = string | SqlExpr;

/** The JSON of one entity: its object without expansions, the members that follow them, and both as one text. */
export interface EntityJson {
  readonly object: SqlExpr;
  /** The expansions' members, in order: `,"name":` texts and their values. Empty without expansions. */
  readonly members: readonly JsonPart[];
  /** The object with the members spliced in, in SQL (the object itself when there are none). */
  readonly whole: SqlExpr;
}

/**
 * The JSON text of one entity: `columns` are the row's entity columns as planSelect's entityColumns
 * makes them (aliased by property name, plus the version), `expansions` the expanded navigations.
 * Member order as entityToJson: `@odata.etag`, properties in model order (media as link annotations),
 * then per expansion its count and its value. `level` is the query level that reads the row.
 */
export function entityJsonExpr(
  type: EntityType,
  columns: readonly SelectColumn[],
  opts: SqlJsonOptions,
  select: ReadonlySet<string> | undefined,
  expansions: readonly JsonExpansion[],
  level: LateralJoins,
): EntityJson {
  const d = opts.dialect;
  const byAlias = new Map(columns.flatMap((c) => (c.alias === undefined ? [] : [[c.alias, c.expr] as const])));
  const column = (alias: string): SqlExpr => {
    const e = byAlias.get(alias);
    if (e === undefined) throw new Error(`entity JSON of ${type.name}: no column ${alias}`);
    return e;
  };
  const members: { key: string; value: SqlExpr; json: boolean }[] = [];
  const minimal = opts.metadata === 'minimal';
  if (minimal) members.push({ key: '@odata.etag', value: etagExpr(d, column(VERSION_ALIAS)), json: false });
  const url = (suffix: string): SqlExpr => d.concat([param(`${opts.links.serviceRootUrl}/${opts.links.prefix}${type.entitySet}(`), column(type.key.name), param(`)/${suffix}`)]);
  for (const p of type.properties) {
    if (!included(p, type, select)) continue;
    if (p.storage.kind === 'media') {
      if (minimal) {
        members.push({ key: `${p.name}@odata.mediaReadLink`, value: url(p.name), json: false });
        members.push({ key: `${p.name}@odata.mediaEditLink`, value: url(p.name), json: false });
        members.push({ key: `${p.name}@odata.mediaContentType`, value: param(p.storage.contentType), json: false });
      }
      continue;
    }
    members.push({ key: p.name, value: valueExpr(d, p, column(p.name), opts.ieee754Compatible), json: false });
  }
  const version = column(VERSION_ALIAS);
  // The JSON the row keeps, and the object built from its columns only where it keeps none (a row
  // written with the triggers off): COALESCE evaluates its second argument only then.
  const object: SqlExpr =
    storedJsonServes(type, opts, select) && version.kind === 'column'
      ? { kind: 'call', name: 'coalesce', args: [{ kind: 'column', table: version.table, column: HIDDEN_COLUMNS.entityJson }, d.jsonObject(members)] }
      : // The etag member's function (not inlined) makes the object costly in the planner's eyes, so it is
        // built after a sort with a LIMIT, for the rows kept; a cheap object is not offered the level (see
        // the PostgreSQL dialect's jsonObject).
        d.jsonObject(members, minimal ? level : undefined);
  const parts: JsonPart[] = [];
  for (const x of expansions) {
    if (x.count !== undefined) {
      const count: SqlExpr = { kind: 'call', name: 'coalesce', args: [x.count, { kind: 'constant', value: 0 }] };
      const quote = opts.ieee754Compatible ? '"' : '';
      parts.push(`,${JSON.stringify(`${x.name}@odata.count`)}:${quote}`, count, ...(quote === '' ? [] : [quote]));
    }
    parts.push(`,${JSON.stringify(x.name)}:`, { kind: 'call', name: 'coalesce', args: [x.value, param('null')] });
  }
  return { object, members: parts, whole: parts.length === 0 ? object : splicedInSql(d, object, parts) };
}

/**
 * Expansions are JSON text already: spliced in before the closing brace instead of re-parsed by json().
 * The object's last member is a scalar, so its text ends in exactly one '}'.
 */
function splicedInSql(d: Dialect, object: SqlExpr, parts: readonly JsonPart[]): SqlExpr {
  return d.concat([{ kind: 'call', name: 'rtrim', args: [object, param('}')] }, ...parts.map((m) => (typeof m === 'string' ? param(m) : m)), param('}')]);
}
