/**
 * Builders of the JSON responses the operations return: entity, collection, count, no content.
 * `@odata.context` is always the first member (Power Query reads only that one).
 */
import type { DbRow } from '../db/engine.js';
import type { EntityType } from '../edm/model.js';
import { entityToJson, rowEtag, rowUrl, type EntityJsonOptions } from '../serialize/entity-json.js';
import { jsonContentType, type JsonFormat } from './format.js';
import type { ODataResponse } from './request.js';

/** A JSON response with the OData content type of `format`. */
export function jsonResponse(status: number, body: Record<string, unknown>, format: JsonFormat, headers: Record<string, string> = {}): ODataResponse {
  return { status, headers: { 'Content-Type': jsonContentType(format), ...headers, 'OData-Version': '4.0' }, body: JSON.stringify(body) };
}

/** One entity (GET, POST 201, PATCH 200, action result) with its ETag header. */
export function entityResponse(
  status: number,
  type: EntityType,
  row: DbRow,
  context: string,
  opts: EntityJsonOptions,
  extraHeaders: Record<string, string> = {},
): ODataResponse {
  const body: Record<string, unknown> = {};
  if (opts.format.metadata !== 'none') body['@odata.context'] = context;
  Object.assign(body, entityToJson(type, row, opts));
  return jsonResponse(status, body, opts.format, { ETag: rowEtag(row), ...extraHeaders });
}

/** A collection of entities with optional count and next link. */
export function collectionResponse(
  type: EntityType,
  rows: readonly DbRow[],
  context: string,
  opts: EntityJsonOptions,
  count?: number,
  nextLink?: string,
): ODataResponse {
  const body: Record<string, unknown> = {};
  if (opts.format.metadata !== 'none') body['@odata.context'] = context;
  if (count !== undefined) body['@odata.count'] = countValue(count, opts.format);
  body['value'] = rows.map((r) => entityToJson(type, r, opts));
  if (nextLink !== undefined) body['@odata.nextLink'] = nextLink;
  return jsonResponse(200, body, opts.format);
}

/** `@odata.count` as JSON writes it: a number, or with IEEE754Compatible=true a string (JSON Format §3.2). */
export function countValue(count: number, format: JsonFormat): number | string {
  return format.ieee754Compatible ? String(count) : count;
}

/** `{"@odata.context":...,"@odata.count":n,"value":[` of a collection written from JSON texts. */
function collectionTextHead(context: string, format: JsonFormat, count: number | undefined): string {
  const head = format.metadata !== 'none' ? `{"@odata.context":${JSON.stringify(context)},` : '{';
  return `${head}${count === undefined ? '' : `"@odata.count":${JSON.stringify(countValue(count, format))},`}"value":`;
}

/**
 * A collection whose entities are JSON texts already (written by the database), joined with commas
 * (UTF-8 bytes when a read thread sent them): the same bytes as collectionResponse, with
 * `@odata.context`, `@odata.count`, `value`, `@odata.nextLink` in that order.
 */
export function collectionJoinedResponse(entities: string | Uint8Array, context: string, format: JsonFormat, count: number | undefined, nextLink: string | undefined): ODataResponse {
  const head = `${collectionTextHead(context, format, count)}[`;
  const tail = nextLink === undefined ? ']}' : `],"@odata.nextLink":${JSON.stringify(nextLink)}}`;
  const body = typeof entities === 'string' ? head + entities + tail : Buffer.concat([Buffer.from(head, 'utf8'), entities, Buffer.from(tail, 'utf8')]);
  return { status: 200, headers: { 'Content-Type': jsonContentType(format), 'OData-Version': '4.0' }, body };
}

/** What entity texts of one context URL and format have in common: the body's head and the content type. */
export interface EntityTextFrame {
  /** `{"@odata.context":"...",` that replaces the text's `{`; undefined without metadata. */
  readonly head: string | undefined;
  readonly contentType: string;
}

/** The frame of entity texts with `context` in `format` (made once by a caller that answers many: operations/read-by-key.ts). */
export function entityTextFrame(context: string, format: JsonFormat): EntityTextFrame {
  return { head: format.metadata !== 'none' ? `{"@odata.context":${JSON.stringify(context)},` : undefined, contentType: jsonContentType(format) };
}

/** One entity whose JSON text was written by the database, with its ETag header, in a frame: the same bytes as entityResponse. */
export function framedEntityTextResponse(status: number, entity: string, etag: string, frame: EntityTextFrame): ODataResponse {
  const body = frame.head === undefined ? entity : frame.head + entity.slice(1);
  return { status, headers: { 'Content-Type': frame.contentType, ETag: etag, 'OData-Version': '4.0' }, body };
}

/** One entity whose JSON text was written by the database, with its ETag header: the same bytes as entityResponse. */
export function entityTextResponse(status: number, entity: string, etag: string, context: string, format: JsonFormat): ODataResponse {
  return framedEntityTextResponse(status, entity, etag, entityTextFrame(context, format));
}

/** 204 No Content with optional headers. */
export function noContent(headers: Record<string, string> = {}): ODataResponse {
  return { status: 204, headers };
}

/** The `Location` and `OData-EntityId` headers of a created entity. */
export function createdHeaders(type: EntityType, row: DbRow, opts: EntityJsonOptions): Record<string, string> {
  const url = rowUrl(type, row, opts.links);
  return { Location: url, 'OData-EntityId': url };
}
