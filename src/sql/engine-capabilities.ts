/**
 * What an engine can do that the planners ask for by name, apart from how it spells SQL (dialect.ts).
 * Each is a choice of plan, not of syntax: a planner that ignores one still gives the right answer, only
 * slower on that engine. An engine answers each in its dialect file (db/<engine>/<engine>-dialect.ts).
 */
import type { SelectNode, SqlExpr } from './nodes.js';

/** The planners' questions to an engine. */
export interface EngineCapabilities {
  /**
   * Equality with a non-null value is better written `=` than null-safe (in a condition NULL = x is not
   * true, as `null eq x` is false): true where the engine answers `=` from an index but never its
   * null-safe form (PostgreSQL's IS NOT DISTINCT FROM); SQLite's `IS` uses indexes, so it keeps one form.
   */
  readonly plainEqualsForValues: boolean;
  /**
   * `startswith` with a literal also states the prefix's range (`x >= 'ab' AND x < 'ac'`): true where
   * prepared statements are planned without the pattern's value, so only a range narrows an index scan
   * (PostgreSQL); SQLite's LIKE never uses an index here.
   */
  readonly prefixRange: boolean;
  /**
   * The engine keeps each row's entity JSON (odata.metadata=minimal, every property, no expansion) in
   * the hidden column `_entityJson`, kept by triggers, so reads copy it instead of building it (and
   * build it where it is NULL). An engine that says true creates the triggers
   * (query/plan-stored-json.ts gives their definition).
   */
  readonly storedEntityJson: boolean;
  /**
   * A final page (no next page can follow) of `entities` entities, its expansions' at their caps
   * included, of about `members` JSON members each, is read as one text of its entities, which also
   * carries `$count` and saves a statement; otherwise it comes back as rows, streamed and cut at the
   * response budget. The database builds and sends the text whole, so the size where that stops paying
   * depends on the engine.
   */
  pageTextFits(entities: number, members: number): boolean;
  /**
   * The count of one company's whole set (no filter, no path condition) as the engine keeps it: a
   * statement of one row whose column `alias` is the count; undefined where counting the table is
   * cheap already (SQLite counts its b-tree's cells).
   */
  readonly keptSetCount?: (table: string, companyId: SqlExpr, alias: string) => SelectNode;
}
