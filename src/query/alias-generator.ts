/**
 * Fresh table aliases for one statement (t0, t1, ...), so nested subqueries never capture each other.
 */

/** Hands out unique aliases within one planned statement. */
export class AliasGenerator {
  private next = 0;
  /** @param taken a name the statement uses unaliased (a written table's), never handed out */
  constructor(private readonly taken?: string) {}
  /** A new alias. */
  fresh(): string {
    let alias = `t${this.next++}`;
    if (alias === this.taken) alias = `t${this.next++}`;
    return alias;
  }
}
