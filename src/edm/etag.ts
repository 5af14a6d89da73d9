/**
 * Weak, opaque ETags derived from the hidden row version (conventions §2), and matching them against
 * If-Match and If-None-Match values.
 */

/** base64 of every 3-digit group "000".."999" and of every 1-digit tail "0".."9". */
const TRIPLES = Array.from({ length: 1000 }, (_, i) => Buffer.from(String(i).padStart(3, '0')).toString('base64'));
const SINGLES = Array.from({ length: 10 }, (_, i) => Buffer.from(String(i)).toString('base64'));

/** The ETag of a row version: `W/"<base64 of its text>"`. */
export function formatEtag(version: unknown): string {
  // The clock's 16-digit versions take a table per 3 digits (this runs for every row of every read).
  if (typeof version === 'number' && version >= 1e15 && version < 1e16 && Number.isSafeInteger(version)) {
    const v = version;
    return `W/"${TRIPLES[Math.floor(v / 1e13)]}${TRIPLES[Math.floor(v / 1e10) % 1000]}${TRIPLES[Math.floor(v / 1e7) % 1000]}${TRIPLES[Math.floor(v / 1e4) % 1000]}${TRIPLES[Math.floor(v / 10) % 1000]}${SINGLES[v % 10]}"`;
  }
  return `W/"${Buffer.from(String(version)).toString('base64')}"`;
}

/** The opaque part of an entity tag, ignoring the weak prefix, or undefined when malformed. */
function opaque(tag: string): string | undefined {
  const m = /^\s*(?:W\/)?"([^"]*)"\s*$/.exec(tag);
  return m?.[1];
}

/**
 * true when an If-Match or If-None-Match header value matches the current ETag: `*`, or any listed
 * tag with the same opaque value (OData uses weak tags; we compare their opaque values, RFC 9110's
 * weak comparison).
 */
export function etagMatches(header: string, currentEtag: string): boolean {
  if (header.trim() === '*') return true;
  const current = opaque(currentEtag);
  return splitTags(header).some((t) => opaque(t) === current);
}

/**
 * The row version an If-Match value names when it is exactly one ETag this service wrote (formatEtag),
 * else undefined (`*`, a list, a tag of another form).
 */
export function versionOfEtag(header: string): number | undefined {
  const tags = splitTags(header);
  if (tags.length !== 1) return undefined;
  const value = opaque(tags[0] as string);
  if (value === undefined) return undefined;
  const text = Buffer.from(value, 'base64').toString('latin1');
  if (!/^[0-9]{1,16}$/.test(text)) return undefined;
  const version = Number(text);
  return Number.isSafeInteger(version) && opaque(formatEtag(version)) === value ? version : undefined;
}

function splitTags(header: string): string[] {
  const tags: string[] = [];
  const re = /\s*((?:W\/)?"[^"]*"|[^,]+)\s*(?:,|$)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(header)) !== null && m[0] !== '') tags.push(m[1] ?? '');
  return tags;
}

/** Monotonic row-version source: microseconds since the epoch, strictly increasing in this process. */
export function createVersionClock(): () => number {
  let last = 0;
  return () => {
    const candidate = Date.now() * 1000;
    last = candidate > last ? candidate : last + 1;
    return last;
  };
}
