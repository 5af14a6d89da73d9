/**
 * The request's preconditions (OData Protocol §8.2.4 and §8.2.5, RFC 9110 §13.1), read from its headers
 * once at the edge: the operations and the store see these values, never the request. A write that
 * requires If-Match asks for it before any hook or database work (requireIfMatch), so a client that
 * forgot it learns so at once.
 */
import { ifNoneMatchFailed, MalformedEtagError, PreconditionFailedError, PreconditionRequiredError } from '../errors/odata-error.js';
import { etagMatches } from '../edm/etag.js';

/** If-Match and If-None-Match as sent, or undefined when absent or blank. */
export interface Preconditions {
  readonly ifMatch: string | undefined;
  readonly ifNoneMatch: string | undefined;
}

/** No precondition: what a request without the headers has. */
export const NO_PRECONDITIONS: Preconditions = { ifMatch: undefined, ifNoneMatch: undefined };

function present(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v === undefined || v === '' ? undefined : v;
}

/** `*`, or entity tags separated by commas (RFC 9110 §13.1.1: `W/"..."` or `"..."`). */
const ETAG_LIST = /^(?:\*|(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"(?:[ \t]*,[ \t]*(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*")*)$/;

/** The header's value if present, after checking that it is `*` or entity tags (400 otherwise). */
function tags(header: 'If-Match' | 'If-None-Match', value: string | undefined): string | undefined {
  const v = present(value);
  if (v !== undefined && !ETAG_LIST.test(v)) throw new MalformedEtagError(header, v);
  return v;
}

/** The preconditions a request's headers state; 400 for a value that is not an entity tag. */
export function preconditionsOf(headers: Readonly<Record<string, string | undefined>>): Preconditions {
  const ifMatch = tags('If-Match', headers['if-match']);
  const ifNoneMatch = tags('If-None-Match', headers['if-none-match']);
  return ifMatch === undefined && ifNoneMatch === undefined ? NO_PRECONDITIONS : { ifMatch, ifNoneMatch };
}

/** 428 when the write requires If-Match and the request has none (conventions: PATCH, PUT, media PUT). */
export function requireIfMatch(preconditions: Preconditions): void {
  if (preconditions.ifMatch === undefined) throw new PreconditionRequiredError();
}

/**
 * Checks the preconditions against the entity's current ETag: If-Match (428 when required and missing,
 * 412 when stale), If-None-Match (412 when it matches).
 */
export function checkPreconditions(preconditions: Preconditions, currentEtag: string, ifMatchRequired: boolean): void {
  const { ifMatch, ifNoneMatch } = preconditions;
  if (ifMatch === undefined) {
    if (ifMatchRequired) throw new PreconditionRequiredError();
  } else if (!etagMatches(ifMatch, currentEtag)) {
    throw new PreconditionFailedError();
  }
  if (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, currentEtag)) throw ifNoneMatchFailed();
}
