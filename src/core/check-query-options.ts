/**
 * Nothing a client sends is silently ignored (conventions §8): a system query option the service does
 * not implement is 501 BadRequest_NotImplemented naming it, one that does not apply to the resource is
 * 400. Unknown `$`-options never get here (the parser answers 400; it answers 501 for `$levels`, at the
 * top and, through planExpand, inside `$expand`). Checked once per request,
 * before any work; the options the operations do implement are checked where they are planned.
 */
import { NotImplementedError, UriSemanticError } from '../errors/odata-error.js';
import type { QueryOptions } from '../uri/ast.js';
import type { BoundPath } from '../uri/bound-path.js';
import { editDistance } from '../edm/suggest-name.js';

/** The options no resource of this service implements, with what a client should know. */
const NOT_IMPLEMENTED: readonly [keyof QueryOptions, string][] = [
  ['deltatoken', 'delta links (change tracking) are not supported'],
  ['schemaversion', 'the service has one schema version'],
  ['index', 'ordered collections of this service have no positional insert'],
  ['id', 'entity ids ($entity?$id=...) are not supported; address entities by their URL'],
  ['search', 'use $filter with contains() instead'],
  ['compute', 'computed properties in a request are not supported'],
];

/** The options the service document and `$metadata` accept besides custom ones (URL Conventions §4.1, §4.2). */
const DOCUMENT_OPTIONS: ReadonlySet<string> = new Set(['format', 'aliases', 'custom']);

/** The custom option that names the company of an unscoped URL (resolve-company.ts). */
const COMPANY_OPTION = 'company';

/**
 * 400 for a custom option within two edits of `company` (`compnay`, `Company`, `companyId`): custom
 * options are otherwise ignored, as OData allows, so the misspelt one would silently read the default
 * company's data instead of the one the client named.
 */
function checkCompanyLookalike(custom: ReadonlyMap<string, string>): void {
  for (const name of custom.keys()) {
    if (name !== COMPANY_OPTION && editDistance(name, COMPANY_OPTION) <= 2) {
      throw new UriSemanticError(
        `The query option '${name}' is not one this service knows; did you mean '${COMPANY_OPTION}' (company=<id or name>)? Without it the request would read your default company.`,
        name,
        'BadRequest_InvalidRequestUrl',
      );
    }
  }
}

/** Throws 501 for an option without an implementation, 400 for one that does not apply to `path` or that looks like a misspelt `company`. */
export function checkQueryOptions(options: QueryOptions, path: BoundPath, method: string): void {
  if (options.custom.size > 0) checkCompanyLookalike(options.custom);
  for (const [option, why] of NOT_IMPLEMENTED) {
    if (options[option] !== undefined) throw new NotImplementedError(`The system query option $${option} is not supported: ${why}.`);
  }
  if (path.kind !== 'resource') {
    const extra = Object.keys(options).find((k) => !DOCUMENT_OPTIONS.has(k) && options[k as keyof QueryOptions] !== undefined);
    if (extra !== undefined) {
      const what = path.kind === 'metadata' ? '$metadata' : 'the service document';
      throw new UriSemanticError(`$${extra} is not allowed for ${what}; only $format and custom options are.`, `$${extra}`, 'BadRequest_InvalidRequestUrl');
    }
    return;
  }
  const reads = method === 'GET' || method === 'HEAD';
  if (options.apply !== undefined && (!reads || (path.target.kind !== 'collection' && path.target.kind !== 'count'))) {
    throw new UriSemanticError('$apply applies to reading a collection (GET of an entity set, a collection-valued navigation or its /$count).', '$apply', 'BadRequest_InvalidRequestUrl');
  }
}
