/**
 * Writes entity rows as OData JSON objects (JSON Format §4, §8): `@odata.etag` on every entity,
 * properties in model order with their JSON representation, media read/edit links instead of
 * stream values, and with odata.metadata=full also the type, id and edit link.
 */
import { VERSION_ALIAS, type EntityType, type Property } from '../edm/model.js';
import { storedToJson } from '../edm/values.js';
import type { DbRow } from '../db/engine.js';
import type { JsonFormat } from '../core/format.js';
import { formatEtag } from '../edm/etag.js';
import { keyLiteral } from './context-url.js';

/** Where entities live, for links: `<serviceRootUrl>/<prefix><set>(<key>)`. */
export interface EntityLinkBase {
  readonly serviceRootUrl: string;
  /** `companies(<id>)/` or '' (global types). */
  readonly prefix: string;
}

/** An expanded navigation to write inline: the row column holding its JSON, and its own shape. */
export interface ExpandShape {
  readonly name: string;
  readonly target: EntityType;
  readonly collection: boolean;
  readonly countColumn?: string;
  readonly select?: ReadonlySet<string>;
  readonly expand: readonly ExpandShape[];
}

/** Options of the writer. */
export interface EntityJsonOptions {
  readonly format: JsonFormat;
  readonly links: EntityLinkBase;
  /** Selected property names; undefined = all. */
  readonly select?: ReadonlySet<string>;
  /** Navigations expanded inline. */
  readonly expand?: readonly ExpandShape[];
}

/** The ETag of a row read with the planner's version column. */
export function rowEtag(row: DbRow): string {
  return formatEtag(row[VERSION_ALIAS]);
}

/** The canonical URL of a row's entity. */
export function rowUrl(type: EntityType, row: DbRow, links: EntityLinkBase): string {
  return `${links.serviceRootUrl}/${links.prefix}${type.entitySet}(${keyLiteral(type, row[type.key.name] as string)})`;
}

function included(p: Property, type: EntityType, select: ReadonlySet<string> | undefined): boolean {
  return select === undefined || select.has(p.name) || p === type.key;
}

/** One entity as a JSON object (key order = output order). */
export function entityToJson(type: EntityType, row: DbRow, opts: EntityJsonOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const { format } = opts;
  const metadata = format.metadata !== 'none';
  if (metadata) out['@odata.etag'] = rowEtag(row);
  const url = rowUrl(type, row, opts.links);
  if (format.metadata === 'full') {
    out['@odata.type'] = `#${type.qualifiedName}`;
    out['@odata.id'] = url;
    out['@odata.editLink'] = url;
  }
  for (const p of type.properties) {
    if (!included(p, type, opts.select)) continue;
    if (p.storage.kind === 'media') {
      if (metadata) {
        out[`${p.name}@odata.mediaReadLink`] = `${url}/${p.name}`;
        out[`${p.name}@odata.mediaEditLink`] = `${url}/${p.name}`;
        out[`${p.name}@odata.mediaContentType`] = p.storage.contentType;
      }
      continue;
    }
    out[p.name] = storedToJson(row[p.name], p.type, format);
  }
  if (format.metadata === 'full') {
    for (const nav of type.navigations) if (nav.exposed) out[`${nav.name}@odata.navigationLink`] = `${url}/${nav.name}`;
  }
  for (const e of opts.expand ?? []) {
    const raw = row[e.name];
    const parsed: unknown = typeof raw === 'string' ? JSON.parse(raw) : (raw ?? null);
    const nested: EntityJsonOptions = { format, links: opts.links, select: e.select, expand: e.expand };
    if (e.countColumn !== undefined) {
      const n = Number(row[e.countColumn] ?? 0);
      out[`${e.name}@odata.count`] = format.ieee754Compatible ? String(n) : n;
    }
    if (e.collection) {
      out[e.name] = Array.isArray(parsed) ? parsed.map((r) => entityToJson(e.target, r as DbRow, nested)) : [];
    } else {
      out[e.name] = parsed === null ? null : entityToJson(e.target, parsed as DbRow, nested);
    }
  }
  return out;
}
