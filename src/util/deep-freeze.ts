/**
 * Freezes an object graph (cycles allowed) and gives it back. The values of a Map are frozen too; the
 * Map itself still takes `set` (freezing does not stop it), so code holds it as a ReadonlyMap. Used
 * for the runtime model (edm/build-model.ts) and for query option parses that requests share
 * (uri/query-options-cache.ts).
 */
export function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
  if (typeof value !== 'object' || value === null || seen.has(value)) return value;
  seen.add(value);
  if (value instanceof Map) {
    for (const entry of value.values()) deepFreeze(entry, seen);
  } else {
    for (const entry of Object.values(value)) deepFreeze(entry, seen);
  }
  Object.freeze(value);
  return value;
}
