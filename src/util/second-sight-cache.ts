/**
 * A bounded cache that keeps a value for a key the second time the key comes: keys that never
 * repeat (a line number in a path, a query string sent once) cost a lookup, not the work of making a
 * value to keep. Cleared when full: its keys are few in practice, and a flood must not grow memory.
 * Used by the resource path templates (uri/path-templates.ts) and the query options cache
 * (uri/query-options-cache.ts).
 */

/** A key seen once so far. */
const ONCE: unique symbol = Symbol('once');

export class SecondSightCache<V> {
  private readonly entries = new Map<string, V | typeof ONCE>();

  constructor(private readonly limit: number) {}

  /**
   * The value kept for `key`; undefined the first time the key comes (the caller does the work
   * itself), and the second time `make()`'s result, which is kept. When `make` throws, nothing is
   * kept and the next time it is called again.
   */
  get(key: string, make: () => V): V | undefined {
    const entry = this.entries.get(key);
    if (entry !== undefined && entry !== ONCE) return entry;
    const value = entry === undefined ? ONCE : make();
    if (this.entries.size >= this.limit) this.entries.clear();
    this.entries.set(key, value);
    return value === ONCE ? undefined : value;
  }
}
