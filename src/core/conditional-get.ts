/**
 * Conditional GET (OData 4.01 Part 1 §8.2.4-§8.2.5, RFC 9110 §13.1-§13.2), for answers that carry an
 * ETag (one entity, a media value): an If-Match that lists none of the answer's ETag is a 412, as for
 * a change; an If-None-Match that is `*` or lists it turns the answer into 304 Not Modified with no
 * body, so a client that cached an entity re-reads it for the price of a header.
 *
 * The ETag is the row's version (conventions §2), so a 304 is only right where the row alone makes the
 * answer: a media value, or an entity without `$expand` whose selected properties are all kept in the
 * row. A computed property (a lookup such as changeReasonDescription, an `exists` such as bomExists)
 * and an expanded navigation change with other rows while the ETag stays, so such a GET is answered in
 * full whatever its If-None-Match says. Answers without an ETag header (collections, service
 * documents) are not conditional and go out as they are.
 */
import { PreconditionFailedError } from '../errors/odata-error.js';
import { etagMatches } from '../edm/etag.js';
import type { EntityType } from '../edm/model.js';
import type { QueryOptions } from '../uri/ast.js';
import type { PathTarget } from '../uri/bound-path.js';
import type { ODataRequest, ODataResponse } from './request.js';

/** true when the answer to a GET of `target` (of `type`) with `options` is made by the row alone, so its ETag identifies it. */
export function answerFollowsRow(type: EntityType, target: PathTarget, options: QueryOptions): boolean {
  switch (target.kind) {
    case 'media':
      return true;
    case 'property':
      return target.property.storage.kind !== 'computed';
    case 'entity': {
      if (options.expand !== undefined && options.expand.length > 0) return false;
      const items = options.select;
      if (items === undefined || items.some((s) => s.kind === 'star')) return type.properties.every((p) => p.storage.kind !== 'computed');
      return items.every((s) => s.kind !== 'path' || s.segments.length !== 1 || s.segments[0]?.kind !== 'name' || type.propertyByName.get(s.segments[0].name)?.storage.kind !== 'computed');
    }
    case 'collection':
    case 'count':
    case 'action':
      return false;
  }
}

/**
 * `res`, or its 304 when `notModified` allows one and the request's If-None-Match matches the ETag
 * of the 2xx answer `res`; throws the 412 of an If-Match that does not match it.
 */
export function conditionalGet(req: ODataRequest, res: ODataResponse, notModified: boolean): ODataResponse {
  const etag = res.headers['ETag'];
  if (typeof etag !== 'string' || res.status < 200 || res.status > 299) return res;
  const ifMatch = req.headers['if-match'];
  if (ifMatch !== undefined && ifMatch.trim() !== '' && !etagMatches(ifMatch, etag)) throw new PreconditionFailedError();
  const ifNoneMatch = req.headers['if-none-match'];
  if (!notModified || ifNoneMatch === undefined || ifNoneMatch.trim() === '' || !etagMatches(ifNoneMatch, etag)) return res;
  // RFC 9110 §15.4.5: the header fields a 200 would have had, less those that describe its content.
  const headers: Record<string, string | readonly string[]> = {};
  for (const name in res.headers) {
    if (!/^content-|^preference-applied$/i.test(name)) headers[name] = res.headers[name] as string | readonly string[];
  }
  return { status: 304, headers };
}
