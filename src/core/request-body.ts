/**
 * Reading request bodies: JSON bodies (415 for other content types, 400 for malformed JSON) and
 * `Prefer` (preconditions.ts reads If-Match and If-None-Match).
 */
import { BodyValidationError, UnsupportedMediaTypeError } from '../errors/odata-error.js';
import type { ODataRequest } from './request.js';
import { parsePrefer } from '../uri/parse-prefer.js';
import { limitSetting } from '../edm/service-limits.js';

/** The media type of a Content-Type header, lower-case, without parameters. */
export function mediaType(header: string | undefined): string | undefined {
  const t = header?.split(';')[0]?.trim().toLowerCase();
  return t === '' ? undefined : t;
}

/**
 * The position where the JSON text nests deeper than `max` objects and arrays, or -1. One pass over
 * the text (strings skipped, escapes included), so the check costs what reading the body costs: a
 * body nested thousands deep would otherwise exhaust the stack of whatever walks it after parsing.
 */
export function jsonNestingBeyond(text: string, max: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return i;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return -1;
}

/** Parses the JSON body of a POST/PATCH (nested at most `maxDepth` objects and arrays deep). */
export function readJsonBody(req: ODataRequest, maxDepth: number): unknown {
  const type = mediaType(req.headers['content-type']);
  if (type !== 'application/json') {
    throw new UnsupportedMediaTypeError(
      `The Content-Type '${req.headers['content-type'] ?? '(none)'}' is not supported for this request; send the body as application/json.`,
    );
  }
  const text = req.body?.toString('utf8') ?? '';
  if (text.trim() === '') throw new BodyValidationError('BadRequest', 'Invalid Request Body: the body is empty; send a JSON object.');
  const deep = jsonNestingBeyond(text, maxDepth);
  if (deep >= 0) {
    throw new BodyValidationError('BadRequest', `Invalid Request Body: the JSON nests deeper than ${maxDepth} objects and arrays (at character ${deep}; ${limitSetting('maxJsonDepth')}).`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new BodyValidationError('BadRequest', `Invalid Request Body: the body is not valid JSON (${(e as Error).message}).`);
  }
}

/** The `return=` preference of the request (OData Protocol §8.2.8.7). */
export function preferReturn(req: ODataRequest): 'minimal' | 'representation' | undefined {
  const prefer = req.headers['prefer'];
  return prefer === undefined ? undefined : parsePrefer(prefer).preferences.return;
}
