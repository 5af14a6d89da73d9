/**
 * Whole OData URLs (ABNF `odataRelativeUri`, `odataUri`): the resource path, the query, and the
 * rules that tie them together: `$metadata` and `$batch` take only `$format` and custom options,
 * `$entity` needs `$id` and takes `$select`/`$expand` only after a type cast (URL Conventions 4.01
 * §4.1, §4.2, §4.3.4). A fragment is accepted only after `$metadata` (a context URL) and is returned
 * unparsed: a server never receives one and never needs to parse its own context URLs.
 */
import type { QueryOptions, ResourcePath } from './ast.js';
import { UriSyntaxError } from '../errors/odata-error.js';
import { checkUrlLength, DEFAULT_PARSE_LIMITS, type ParseLimits } from './parse-limits.js';
import { percentDecode } from './percent-decode.js';
import { parseResourcePath } from './parse-path.js';
import { parseQueryOptions } from './parse-options.js';
import { systemOptionName } from './parse-option-value.js';
import { parseServiceRoot } from './parse-service-root.js';

/** A parsed OData URL. */
export interface ODataUri {
  readonly path: ResourcePath;
  readonly query: QueryOptions;
  /** The text after `#` (a context URL fragment after `$metadata`), undecoded. */
  readonly fragment?: string;
}

/** A parsed absolute OData URL, with its service root. */
export interface AbsoluteODataUri extends ODataUri {
  readonly serviceRoot: string;
}

/** Parses a URL relative to the service root, e.g. `Categories(1)/Products?$top=2` (ABNF `odataRelativeUri`). */
export function parseRelativeUri(text: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): ODataUri {
  checkUrlLength(text, limits, 'URL');
  const hash = text.indexOf('#');
  const body = hash < 0 ? text : text.slice(0, hash);
  const q = body.indexOf('?');
  const rawQuery = q < 0 ? '' : body.slice(q + 1);
  const path = parseResourcePath(q < 0 ? body : body.slice(0, q), limits);
  const query = parseQueryOptions(rawQuery, limits);
  const first = path.segments[0];
  if (hash >= 0 && (first?.kind !== 'metadata' || path.segments.length !== 1)) {
    throw new UriSyntaxError(`Syntax error at position ${hash}: a fragment ('#...') is only allowed after $metadata.`, 'fragment', hash);
  }
  if (first?.kind === 'metadata' || first?.kind === 'batch') {
    onlyOptions(rawQuery, new Set(['format']), `$${first.kind}`);
  } else if (first?.kind === 'entity') {
    const cast = path.segments.length > 1;
    onlyOptions(rawQuery, new Set(cast ? ['id', 'format', 'select', 'expand'] : ['id', 'format']), cast ? '$entity/Type' : '$entity');
    if (query.id === undefined) {
      throw new UriSyntaxError(`Syntax error at position ${text.length}: $entity needs $id=<entity URL>.`, '$id', text.length);
    }
  }
  return { path, query, ...(hash < 0 ? {} : { fragment: text.slice(hash + 1) }) };
}

/** Parses an absolute URL `http(s)://host[:port]/root/...` (ABNF `odataUri`); positions after the root are relative to it. */
export function parseODataUri(text: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): AbsoluteODataUri {
  checkUrlLength(text, limits, 'URL');
  const root = parseServiceRoot(text);
  return { serviceRoot: text.slice(0, root.end), ...parseRelativeUri(text.slice(root.end), limits) };
}

/** Rejects system options (and aliases) other than `allowed` on a special resource. */
function onlyOptions(rawQuery: string, allowed: ReadonlySet<string>, resource: string): void {
  let offset = 0;
  for (const piece of rawQuery.split('&')) {
    const name = percentDecode(piece.split('=')[0] ?? '', 'query', offset);
    const option = systemOptionName(name);
    if ((option !== undefined && !allowed.has(option)) || name.startsWith('@')) {
      throw new UriSyntaxError(
        `Syntax error at position ${offset} in the query: ${name} is not allowed for ${resource}; allowed are ${[...allowed].map((o) => `$${o}`).join(', ')} and custom options.`,
        option === undefined ? 'query' : `$${option}`,
        offset,
      );
    }
    offset += piece.length + 1;
  }
}
