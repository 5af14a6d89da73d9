/**
 * Conditional GET (OData 4.01 Part 1 §8.2.4-§8.2.5, RFC 9110 §13.1-§13.2), for answers that carry an
 * ETag (one entity, a media value): an If-Match that lists none of the answer's ETag is a 412, as for
 * a change; an If-None-Match that is `*` or lists it turns the answer into 304 Not Modified with no
 * body, so a client that cached an entity re-reads it for the price of a header. Answers without an
 * ETag header (collections, service documents) are not conditional and go out as they are.
 */
import { PreconditionFailedError } from '../errors/odata-error.js';
import { etagMatches } from '../serialize/etag.js';
import type { ODataRequest, ODataResponse } from './request.js';

/** `res`, its 304 when the request's If-None-Match matches the ETag of the 2xx answer `res`; throws the 412 of a failed If-Match. */
export function conditionalGet(req: ODataRequest, res: ODataResponse): ODataResponse {
  const etag = res.headers['ETag'];
  if (typeof etag !== 'string' || res.status < 200 || res.status > 299) return res;
  const ifMatch = req.headers['if-match'];
  if (ifMatch !== undefined && ifMatch.trim() !== '' && !etagMatches(ifMatch, etag)) throw new PreconditionFailedError();
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch === undefined || ifNoneMatch.trim() === '' || !etagMatches(ifNoneMatch, etag)) return res;
  // RFC 9110 §15.4.5: the header fields a 200 would have had, less those that describe its content.
  const headers: Record<string, string | readonly string[]> = {};
  for (const name in res.headers) {
    if (!/^content-|^preference-applied$/i.test(name)) headers[name] = res.headers[name] as string | readonly string[];
  }
  return { status: 304, headers };
}
