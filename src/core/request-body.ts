/**
 * Reading request bodies and preconditions: JSON bodies (415 for other content types, 400 for
 * malformed JSON), If-Match (428 when required and missing, 412 when stale), If-None-Match (412 when
 * it matches) and `Prefer`.
 */
import { BodyValidationError, ifNoneMatchFailed, PreconditionFailedError, PreconditionRequiredError, UnsupportedMediaTypeError } from '../errors/odata-error.js';
import { etagMatches } from '../edm/etag.js';
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

/**
 * Checks the preconditions of a change to an entity whose current ETag is `currentEtag`, in RFC 9110
 * §13.2.2's order: If-Match first (`ifMatchRequired` makes a missing one a 428, OData 4.01 Part 1
 * §8.2.4: If-None-Match does not stand in for it; a stale one is a 412), then If-None-Match, whose `*`
 * or a listed current ETag is a 412 (§8.2.5: the operation "MUST only be invoked if the If-Match or
 * If-None-Match condition is satisfied"). OpenUI5 sends `If-None-Match: *` to write only what does not
 * exist yet: an existing entity is then a 412, or the 428 first where If-Match is required and missing.
 */
export function checkPreconditions(req: ODataRequest, currentEtag: string, ifMatchRequired: boolean): void {
  const ifMatch = req.headers['if-match'];
  if (ifMatch === undefined || ifMatch.trim() === '') {
    if (ifMatchRequired) throw new PreconditionRequiredError();
  } else if (!etagMatches(ifMatch, currentEtag)) {
    throw new PreconditionFailedError();
  }
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch !== undefined && ifNoneMatch.trim() !== '' && etagMatches(ifNoneMatch, currentEtag)) throw ifNoneMatchFailed();
}

/** The `return=` preference of the request (OData Protocol §8.2.8.7). */
export function preferReturn(req: ODataRequest): 'minimal' | 'representation' | undefined {
  const prefer = req.headers['prefer'];
  return prefer === undefined ? undefined : parsePrefer(prefer).preferences.return;
}
