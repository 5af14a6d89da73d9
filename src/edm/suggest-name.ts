/**
 * "Did you mean ...?" for misspelt names in metadata files: a typo such as `nulable` or
 * `engChangeNotices` for `engChangeNotice` should come with the name that was meant.
 */

/** Levenshtein distance, case-insensitive (a wrong capital is the most common slip in camelCase). */
export function editDistance(a: string, b: string): number {
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  let previous = Array.from({ length: right.length + 1 }, (_unused, index) => index);
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (left[i - 1] === right[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length] ?? 0;
}

/** The candidate closest to `name`, if it is close enough to be a plausible typo (else undefined). */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** A fix text naming the valid choices, led by the closest one: `use "x" (or one of: a, b, c)`. */
export function chooseFrom(name: string, candidates: readonly string[], what = 'one of'): string {
  const sorted = [...candidates].sort();
  const list = sorted.length > 0 ? sorted.join(', ') : '(none declared)';
  const best = closestName(name, sorted);
  return best === undefined ? `use ${what}: ${list}` : `use "${best}" (did you mean it?), or ${what}: ${list}`;
}
