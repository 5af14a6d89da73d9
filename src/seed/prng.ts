/**
 * A small seeded pseudo-random generator (mulberry32) so seeded data is the same on every run.
 */

/** Deterministic random helpers from a 32-bit seed. */
export class Prng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    const v = items[Math.floor(this.next() * items.length)];
    if (v === undefined) throw new Error('pick from an empty array');
    return v;
  }
  /** A version-4-shaped GUID. */
  guid(): string {
    const hex = (n: number): string => Array.from({ length: n }, () => Math.floor(this.next() * 16).toString(16)).join('');
    return `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[Math.floor(this.next() * 4)] ?? '8'}${hex(3)}-${hex(12)}`;
  }
}
