/**
 * The rows of each table, as the cost model prices a `$batch`'s reads with them (query/read-cost.ts
 * fullWork): the kept set counts of every company added up (postgres-set-counts.ts), read again after a
 * while. Tables without kept counts (those not scoped to a company: companies, users) count 0; they are
 * small. PostgreSQL's own estimate (pg_class.reltuples) is unknown until a table is first analyzed.
 */
import { objectName, q } from './postgres-ddl.js';
import type { PostgresDatabase } from './postgres-database.js';
import { SET_COUNTS_TABLE } from './postgres-dialect.js';

/** Sizes are read again after this long (as SQLite's read executor does). */
const SIZE_TTL_MS = 10_000;

/** Table sizes, cached a while. */
export class PostgresTableSizes {
  private sizes = new Map<string, number>();
  private at = -Infinity;
  private loading: Promise<void> | undefined;

  constructor(private readonly db: Pick<PostgresDatabase, 'all'>) {}

  /** A function giving a table's rows, from sizes read at most SIZE_TTL_MS ago. */
  async rowsOf(): Promise<(table: string) => number> {
    if (Date.now() - this.at >= SIZE_TTL_MS) await this.refresh();
    return this.lookup(this.sizes);
  }

  /**
   * A function giving a table's rows as last read, without waiting (every table 0 before the first
   * read); sizes older than SIZE_TTL_MS are read again in the background.
   */
  known(): (table: string) => number {
    if (Date.now() - this.at >= SIZE_TTL_MS && this.loading === undefined) this.refresh().catch(() => undefined);
    return this.lookup(this.sizes);
  }

  private lookup(sizes: ReadonlyMap<string, number>): (table: string) => number {
    return (table) => sizes.get(objectName(table)) ?? 0;
  }

  private refresh(): Promise<void> {
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async load(): Promise<void> {
    const rows = await this.db.all({ sql: `SELECT "table", sum("n") AS "n" FROM ${q(SET_COUNTS_TABLE)} GROUP BY "table"`, params: [] });
    const sizes = new Map<string, number>();
    for (const r of rows) sizes.set(String(r['table']), Math.max(0, Number(r['n'])));
    this.sizes = sizes;
    this.at = Date.now();
  }
}
