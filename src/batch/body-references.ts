/**
 * Content-ID references in request bodies (OData 4.01 Part 1 §11.7.3.1, JSON Format §8.5): inside a
 * batch, the value of a `<navigation>@odata.bind` member may be `$<id>`, the entity an earlier request
 * created or addressed (`{"engChangeNotice@odata.bind": "$1"}`), at any depth of a deep insert.
 * Only JSON bodies that mention `@odata.bind` are parsed.
 */
import { mediaType } from '../core/request-body.js';
import { BatchFormatError } from '../errors/odata-error.js';
import type { BatchPart } from './batch-request.js';

const BIND = '@odata.bind';
const REFERENCE = /^\$([A-Za-z0-9_.~-]+)$/;

function jsonBody(part: BatchPart): unknown {
  if (part.body === undefined) return undefined;
  const type = mediaType(part.headers['content-type']);
  if (type !== 'application/json') return undefined;
  const text = part.body.toString('utf8');
  if (!text.includes(BIND)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined; // the request itself answers the malformed JSON
  }
}

/** Calls `visit` with each `$<id>` binding value of `value` and uses what it returns instead. */
function rewrite(value: unknown, visit: (id: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => rewrite(v, visit));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const m = k.endsWith(BIND) && typeof v === 'string' ? REFERENCE.exec(v) : null;
    out[k] = m === null ? rewrite(v, visit) : visit(m[1] as string);
  }
  return out;
}

/** The request ids the body's bindings reference. */
export function bodyReferences(part: BatchPart): string[] {
  const body = jsonBody(part);
  const ids: string[] = [];
  if (body !== undefined) {
    rewrite(body, (id) => {
      ids.push(id);
      return id;
    });
  }
  return ids;
}

/** The body with each `$<id>` binding replaced by the URL `resolve` gives (relative to the service root). */
export function resolveBodyReferences(part: BatchPart, resolve: (id: string) => string | { readonly error: string }): Buffer | undefined {
  const body = jsonBody(part);
  if (body === undefined) return part.body;
  return Buffer.from(
    JSON.stringify(
      rewrite(body, (id) => {
        const url = resolve(id);
        if (typeof url !== 'string') throw new BatchFormatError(`The body of ${part.label} binds to $${id}: ${url.error}`);
        return url;
      }),
    ),
    'utf8',
  );
}
