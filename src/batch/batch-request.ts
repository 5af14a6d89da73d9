/**
 * A `$batch` request as both formats give it (OData 4.0 Part 1 §11.7 multipart; OData 4.01 JSON
 * Format §19): a sequence of units, each one request or one change set / atomicity group, in the
 * order they are to run. The parsers check the structure; handleBatch runs it.
 */

/** The two batch formats (request and response). */
export type BatchFormat = 'multipart' | 'json';

/** One request of a batch. */
export interface BatchPart {
  /** How messages name it: `request 3` (JSON: `request 'a1'`). */
  readonly label: string;
  /** Content-ID (multipart) or `id` (JSON); what `$<id>` references and `dependsOn` name. */
  readonly id: string | undefined;
  /** Upper-case method. */
  readonly method: string;
  /** The URL as sent: absolute, an absolute path, relative to the service root, or `$<id>/...`. */
  readonly url: string;
  /** Headers by lower-case name. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | undefined;
  /** Ids of requests and atomicity groups that must have succeeded first (JSON `dependsOn`; none in multipart). */
  readonly dependsOn: readonly string[];
  /** A JSON `if` condition (not supported: the request fails with 424). */
  readonly condition?: string;
}

/** A unit of a batch: one request, or a change set (atomicity group) whose requests commit together or not at all. */
export type BatchUnit =
  | { readonly kind: 'request'; readonly part: BatchPart }
  | { readonly kind: 'changeSet'; readonly group: string; readonly parts: readonly BatchPart[] };

/** A parsed batch. */
export interface BatchRequest {
  readonly format: BatchFormat;
  readonly units: readonly BatchUnit[];
}

/** The top-level system resources whose names a `$`-segment means rather than a request id (Protocol §11.7.3). */
const SYSTEM_RESOURCES: ReadonlySet<string> = new Set(['$batch', '$crossjoin', '$all', '$entity', '$root', '$id', '$metadata']);

/** The request id a URL's first segment references (`$1/engChangeNoticeComments` → `1`), if any. */
export function referencedId(url: string): string | undefined {
  if (!url.startsWith('$')) return undefined;
  const end = url.search(/[/?(]/);
  const segment = end < 0 ? url : url.slice(0, end);
  return SYSTEM_RESOURCES.has(segment) || segment.length < 2 ? undefined : segment.slice(1);
}

/** The request ids an If-Match or If-None-Match value references (`$1`: the ETag of request 1's response). */
export function referencedEtagId(value: string | undefined): string | undefined {
  const m = value === undefined ? null : /^\$([A-Za-z0-9_.~-]+)$/.exec(value.trim());
  return m === null ? undefined : m[1];
}

/** Every request of a batch, in order. */
export function partsOf(batch: BatchRequest): BatchPart[] {
  return batch.units.flatMap((u) => (u.kind === 'request' ? [u.part] : u.parts));
}
