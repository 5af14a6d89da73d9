/**
 * Weak, opaque ETags derived from the hidden row version (conventions §2), and If-Match matching.
 */

/** The ETag of a row version: `W/"<base64>"`. */
export function formatEtag(version: unknown): string {
  return `W/"${Buffer.from(String(version)).toString('base64')}"`;
}

/** The opaque part of an entity tag, ignoring the weak prefix, or undefined when malformed. */
function opaque(tag: string): string | undefined {
  const m = /^\s*(?:W\/)?"([^"]*)"\s*$/.exec(tag);
  return m?.[1];
}

/**
 * true when an If-Match header value matches the current ETag: `*`, or any listed tag with the same
 * opaque value (OData uses weak tags in If-Match; we compare their opaque values).
 */
export function ifMatchMatches(header: string, currentEtag: string): boolean {
  if (header.trim() === '*') return true;
  const current = opaque(currentEtag);
  return splitTags(header).some((t) => opaque(t) === current);
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
