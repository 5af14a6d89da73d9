/**
 * Reads a JSON batch (OData 4.01 JSON Format §19.1): `{"requests": [...]}`, each request object with
 * `id`, `method`, `url` and optionally `atomicityGroup`, `dependsOn`, `if`, `headers`, `body`.
 * Requests of one atomicity group are adjacent and become one change set. A JSON body is sent on as
 * JSON text, a `text/*` body as the string, any other body as base64url.
 */
import { BatchFormatError } from '../errors/odata-error.js';
import { mediaType, readJsonBody } from '../core/request-body.js';
import type { ODataRequest } from '../core/request.js';
import type { BatchPart, BatchRequest, BatchUnit } from './batch-request.js';
import { shorten } from './multipart.js';

const METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']);
const MEMBERS: ReadonlySet<string> = new Set(['id', 'method', 'url', 'atomicityGroup', 'dependsOn', 'if', 'headers', 'body']);
/** The envelope around a request body: `{"requests":[{"body": ...}]}`. */
export const JSON_BATCH_NESTING = 3;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Parses a JSON batch; `maxJsonDepth` bounds each request body as it bounds a body sent alone. */
export function parseJsonBatch(req: ODataRequest, maxJsonDepth: number, maxParts: number, tooMany: () => Error): BatchRequest {
  const doc = readJsonBody(req, maxJsonDepth + JSON_BATCH_NESTING);
  if (!isObject(doc) || !Array.isArray(doc['requests'])) {
    throw new BatchFormatError('A JSON batch is an object with a "requests" array (OData JSON Format §19.1).');
  }
  for (const name of Object.keys(doc)) {
    if (name !== 'requests' && !name.startsWith('@')) throw new BatchFormatError(`A JSON batch has only "requests" (and annotations); "${shorten(name)}" is not known.`);
  }
  const requests = doc['requests'] as unknown[];
  if (requests.length > maxParts) throw tooMany();
  const units: BatchUnit[] = [];
  const closed = new Set<string>();
  requests.forEach((raw, i) => {
    const { part, group } = request(raw, i);
    const last = units[units.length - 1];
    if (group === undefined) {
      units.push({ kind: 'request', part });
    } else if (last?.kind === 'changeSet' && last.group === group) {
      (last.parts as BatchPart[]).push(part);
    } else {
      if (closed.has(group)) throw new BatchFormatError(`The requests of atomicity group '${shorten(group)}' are not adjacent (${part.label}); list them one after the other.`);
      units.push({ kind: 'changeSet', group, parts: [part] });
    }
    if (last?.kind === 'changeSet' && last.group !== group) closed.add(last.group);
  });
  return { format: 'json', units };
}

function request(raw: unknown, index: number): { part: BatchPart; group: string | undefined } {
  const where = `request ${index + 1}`;
  if (!isObject(raw)) throw new BatchFormatError(`The ${where} of the batch is not an object with "id", "method" and "url".`);
  for (const name of Object.keys(raw)) {
    if (!MEMBERS.has(name)) throw new BatchFormatError(`The ${where} of the batch has the member "${shorten(name)}", which a request object does not have.`);
  }
  const id = raw['id'];
  if (typeof id !== 'string' || id === '') throw new BatchFormatError(`The ${where} of the batch has no "id" (a non-empty string).`);
  const label = `request '${shorten(id)}'`;
  const method = raw['method'];
  if (typeof method !== 'string' || !METHODS.has(method.toUpperCase())) {
    throw new BatchFormatError(`The "method" of ${label} must be one of get, post, patch, put, delete.`);
  }
  const url = raw['url'];
  if (typeof url !== 'string') throw new BatchFormatError(`The "url" of ${label} is missing or not a string.`);
  const group = raw['atomicityGroup'];
  if (group !== undefined && (typeof group !== 'string' || group === '')) throw new BatchFormatError(`The "atomicityGroup" of ${label} must be a non-empty string.`);
  const dependsOn = raw['dependsOn'] ?? [];
  if (!Array.isArray(dependsOn) || dependsOn.some((d) => typeof d !== 'string')) throw new BatchFormatError(`The "dependsOn" of ${label} must be an array of request ids and atomicity groups.`);
  const condition = raw['if'];
  if (condition !== undefined && typeof condition !== 'string') throw new BatchFormatError(`The "if" of ${label} must be a string.`);
  const headers: Record<string, string> = {};
  const given = raw['headers'] ?? {};
  if (!isObject(given)) throw new BatchFormatError(`The "headers" of ${label} must be an object of header names and string values.`);
  for (const [name, value] of Object.entries(given)) {
    if (typeof value !== 'string') throw new BatchFormatError(`The header "${shorten(name)}" of ${label} must have a string value.`);
    headers[name.toLowerCase()] = value;
  }
  const upper = method.toUpperCase();
  const body = bodyBytes(raw['body'], headers, label);
  if (body !== undefined && (upper === 'GET' || upper === 'DELETE')) throw new BatchFormatError(`${label.charAt(0).toUpperCase()}${label.slice(1)} is a ${upper} with a body; leave the body out.`);
  return { part: { label, id, method: upper, url, headers, body, dependsOn: dependsOn as string[], ...(condition === undefined ? {} : { condition }) }, group };
}

/** The bytes of a request object's `body` for its content type (JSON Format §19.1); sets `content-type` for JSON when missing. */
function bodyBytes(body: unknown, headers: Record<string, string>, label: string): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  const type = mediaType(headers['content-type']);
  if (type === undefined || type === 'application/json' || type.endsWith('+json')) {
    headers['content-type'] ??= 'application/json';
    return Buffer.from(JSON.stringify(body), 'utf8');
  }
  if (typeof body !== 'string') throw new BatchFormatError(`The body of ${label} (Content-Type ${type}) must be a string${type.startsWith('text/') ? '' : ' holding base64url'}.`);
  if (type.startsWith('text/')) return Buffer.from(body, 'utf8');
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(body)) throw new BatchFormatError(`The body of ${label} (Content-Type ${type}) is not base64url.`);
  return Buffer.from(body, 'base64url');
}
