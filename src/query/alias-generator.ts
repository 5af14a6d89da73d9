/**
 * Fresh table aliases for one statement (t0, t1, ...), so nested subqueries never capture each other.
 */

/** Hands out unique aliases within one planned statement. */
export class AliasGenerator {
  private next = 0;
  /** A new alias. */
  fresh(): string {
    return `t${this.next++}`;
  }
}
