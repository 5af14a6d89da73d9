/**
 * The URL of a batch request, resolved to the service-root-relative path and query the core takes
 * (OData 4.0 Part 1 §11.7.7.1; JSON Format §19.1): an absolute URL or an absolute path must lie
 * under the service root; a relative path is relative to it; a first segment `$<id>` is replaced by
 * the URL of the entity request `<id>` created or addressed (§11.7.3.1).
 */
import { BatchFormatError } from '../errors/odata-error.js';
import { referencedId } from './batch-request.js';
import { shorten } from './multipart.js';

/** A request target as the core takes it. */
export interface PartTarget {
  /** Below the service root, starting with `/` (or empty for the service document). */
  readonly path: string;
  /** Without `?`. */
  readonly rawQuery: string;
}

/** Where a batch was sent. */
export interface BatchBase {
  /** Absolute URL of the service root, without a trailing slash. */
  readonly serviceRootUrl: string;
  /** The service root's path, e.g. `/api/v2.0`. */
  readonly rootPath: string;
}

/**
 * Resolves `url` for the request `label`; `resolve(id)` gives the service-root-relative URL (no
 * leading slash) that `$<id>` stands for, or a message saying why there is none.
 */
export function partTarget(url: string, base: BatchBase, label: string, resolve: (id: string) => string | { readonly error: string }): PartTarget {
  if (url === '' || /\s/.test(url)) throw new BatchFormatError(`The URL '${shorten(url)}' of ${label} is ${url === '' ? 'empty' : 'not valid (a space must be sent as %20)'}.`);
  if (url.includes('#')) throw new BatchFormatError(`The URL '${shorten(url)}' of ${label} has a fragment ('#'); leave it out.`);
  let relative: string;
  const id = referencedId(url);
  if (id !== undefined) {
    const target = resolve(id);
    if (typeof target !== 'string') throw new BatchFormatError(`The URL '${shorten(url)}' of ${label} refers to $${id}: ${target.error}`);
    relative = `/${target}${url.slice(id.length + 1)}`;
  } else if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(url)) {
    let parsed: URL;
    let root: URL;
    try {
      parsed = new URL(url);
      root = new URL(base.serviceRootUrl);
    } catch {
      throw new BatchFormatError(`The URL '${shorten(url)}' of ${label} is not a valid absolute URL.`);
    }
    if (parsed.origin !== root.origin) throw outside(url, base, label);
    relative = underRoot(url.slice(url.indexOf(parsed.host) + parsed.host.length), base, label, url);
  } else if (url.startsWith('/')) {
    relative = underRoot(url, base, label, url);
  } else if (url.startsWith('../')) {
    throw outside(url, base, label);
  } else {
    // Relative to the batch URL, `{root}/$batch`: the service root is `./`.
    relative = `/${url.replace(/^(\.\/)+/, '')}`;
  }
  const q = relative.indexOf('?');
  const path = q < 0 ? relative : relative.slice(0, q);
  if (path === '/$batch' || path.endsWith('/$batch')) throw new BatchFormatError(`${label.charAt(0).toUpperCase()}${label.slice(1)} is a $batch request; a batch cannot contain another batch.`);
  return { path: path === '/' ? '' : path, rawQuery: q < 0 ? '' : relative.slice(q + 1) };
}

/** The part of an absolute path below the service root (with its query), or 400. */
function underRoot(pathAndQuery: string, base: BatchBase, label: string, url: string): string {
  const root = base.rootPath;
  if (pathAndQuery === root || pathAndQuery.startsWith(`${root}/`) || pathAndQuery.startsWith(`${root}?`)) return pathAndQuery.slice(root.length) || '/';
  throw outside(url, base, label);
}

function outside(url: string, base: BatchBase, label: string): BatchFormatError {
  return new BatchFormatError(`The URL '${shorten(url)}' of ${label} is outside this service; parts of a batch address ${base.serviceRootUrl}/ (or use a path relative to it).`);
}
