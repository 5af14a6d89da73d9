/**
 * Content negotiation for data responses (OData Protocol §8.2.1, JSON Format §3): `$format` and the
 * Accept header decide the metadata level (minimal, none, full) and IEEE754 compatibility; anything
 * that is not JSON gets 406.
 */
import { NotAcceptableError } from '../errors/odata-error.js';

/** The JSON flavour a response is written in. */
export interface JsonFormat {
  readonly metadata: 'minimal' | 'none' | 'full';
  readonly ieee754Compatible: boolean;
}

interface MediaRange {
  readonly type: string;
  readonly params: ReadonlyMap<string, string>;
  readonly q: number;
}

/** Parses an Accept-style header into media ranges. */
export function parseMediaRanges(header: string): MediaRange[] {
  return header
    .split(',')
    .map((part) => {
      const [type = '', ...rest] = part.split(';').map((s) => s.trim());
      const params = new Map<string, string>();
      for (const r of rest) {
        const i = r.indexOf('=');
        if (i > 0) params.set(r.slice(0, i).trim().toLowerCase(), r.slice(i + 1).trim().replace(/^"|"$/g, '').toLowerCase());
      }
      const q = params.has('q') ? Number(params.get('q')) : 1;
      return { type: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 0 };
    })
    .filter((r) => r.type !== '' && r.q > 0);
}

function fromParams(params: ReadonlyMap<string, string>): JsonFormat {
  const m = params.get('odata.metadata') ?? params.get('metadata');
  if (m !== undefined && m !== 'minimal' && m !== 'none' && m !== 'full') {
    throw new NotAcceptableError(`odata.metadata=${m} is not supported; use minimal, none or full.`);
  }
  return { metadata: m ?? 'minimal', ieee754Compatible: (params.get('ieee754compatible') ?? 'false') === 'true' };
}

/** Chooses the JSON format of a data response, or throws 406. */
export function negotiateJson(format: string | undefined, accept: string | undefined): JsonFormat {
  if (format !== undefined) {
    const [r] = parseMediaRanges(format === 'json' ? 'application/json' : format);
    if (r === undefined || r.type !== 'application/json') {
      throw new NotAcceptableError(`$format=${format} is not supported for this resource; use $format=json.`);
    }
    return fromParams(r.params);
  }
  if (accept === undefined) return MINIMAL;
  let f = accepted.get(accept);
  if (f === undefined) {
    f = fromAccept(accept);
    if (accepted.size >= MAX_REMEMBERED) accepted.clear();
    accepted.set(accept, f);
  }
  return f;
}

const MINIMAL: JsonFormat = { metadata: 'minimal', ieee754Compatible: false };

/**
 * The formats of Accept headers negotiated before (clients send the same few headers again and
 * again, and parsing one would be paid on every request). Bounded: cleared when full.
 */
const accepted = new Map<string, JsonFormat>();
const MAX_REMEMBERED = 64;

function fromAccept(accept: string): JsonFormat {
  if (accept.trim() === '') return MINIMAL;
  const ranges = parseMediaRanges(accept).sort((a, b) => b.q - a.q);
  for (const r of ranges) {
    if (r.type === 'application/json' || r.type === 'application/*' || r.type === '*/*') return fromParams(r.params);
  }
  throw new NotAcceptableError(`None of the requested media types (${accept}) can be produced; this resource is available as application/json.`);
}

/** The Content-Type header of a JSON response in a format. */
export function jsonContentType(f: JsonFormat): string {
  return `application/json; odata.metadata=${f.metadata}${f.ieee754Compatible ? '; IEEE754Compatible=true' : ''}`;
}
