/**
 * The cost model of a read (issue: no request may block the service): what a read may examine and
 * return, known from its plan, and priced with the sizes of its tables when it runs. A read whose
 * expected work is small runs on the event loop (the fast path every plain GET takes); a read whose
 * work grows with the data (lambdas, large scans, many or large expansions) runs in a read thread with
 * a deadline (db/sqlite/sqlite-read-executor.ts), so the other requests keep being answered meanwhile.
 */
import type { EntityType } from '../edm/model.js';
import type { ExpandPlan } from './plan-expand.js';
import type { PlannedQuery } from './plan-query.js';

/** An expansion as the cost model sees it. */
export interface ExpansionCost {
  readonly source: string;
  readonly target: string;
  readonly collection: boolean;
  /** Most entities under one parent (its cap; 1 when single-valued). */
  readonly cap: number;
  readonly nested: readonly ExpansionCost[];
}

/** What a read may cost, from its plan. */
export interface ReadCost {
  /** Work per row that grows with related rows (a lambda or $count over a collection). */
  readonly correlated: boolean;
  /** Tables the read may examine whole (filtered, ordered otherwise than by an index, or counted). */
  readonly scans: readonly string[];
  /** The table of the entities it returns. */
  readonly table: string;
  /** Entities it returns at most, expansions aside (plus the rows $skip passes over); never more than `table` holds. */
  readonly rows: number;
  readonly expansions: readonly ExpansionCost[];
  /** Reads of one class (kind, type, options used, expansions) share what was learnt of their speed. */
  readonly costClass: string;
}

/**
 * What writing an entity's JSON costs in rows examined (a filter test): on the bench data, writing an
 * ECN (its computed fields included) took about as long as a contains() testing 30 rows, an expanded
 * comment or BOM line about half that (EXPANDED_WEIGHT).
 */
export const OUTPUT_WEIGHT = 30;
/** What writing an expanded entity's JSON costs in rows examined (see OUTPUT_WEIGHT). */
export const EXPANDED_WEIGHT = 15;

function expansionCosts(plans: readonly ExpandPlan[], source: EntityType): ExpansionCost[] {
  return plans.map((p) => ({ source: source.table, target: p.nav.target.table, collection: p.nav.collection, cap: p.cap, nested: expansionCosts(p.expand, p.nav.target) }));
}

function signature(plans: readonly ExpandPlan[]): string {
  return plans.map((p) => (p.expand.length === 0 ? p.nav.name : `${p.nav.name}(${signature(p.expand)})`)).join(',');
}

/** The cost of a read of `type` planned as `query`, returning at most `rows` entities (0 for a count alone). */
export function readCost(kind: 'collection' | 'entity' | 'count', type: EntityType, query: PlannedQuery, rows: number, skip: number): ReadCost {
  const scansWhole = kind === 'count' || query.count || (kind === 'collection' && (query.filtered || query.ordered));
  const costClass = [kind, type.name, query.filtered ? 'f' : '', query.ordered ? 'o' : '', query.count ? 'c' : '', signature(query.expand)].join('|');
  return { correlated: query.correlated, scans: scansWhole ? [type.table] : [], table: type.table, rows: rows + skip, expansions: expansionCosts(query.expand, type), costClass };
}

/** Entities the expansions of one entity are expected to add: the average related rows per parent, within the caps. */
function expectedExpanded(expansions: readonly ExpansionCost[], rowsOf: (table: string) => number): number {
  let n = 0;
  for (const e of expansions) {
    const each = e.collection ? Math.min(e.cap, rowsOf(e.target) / Math.max(1, rowsOf(e.source))) : 1;
    n += each * (1 + expectedExpanded(e.nested, rowsOf));
  }
  return n;
}

/**
 * The expected work of a read in row units (a row examined is 1, an entity written OUTPUT_WEIGHT, an
 * expanded one EXPANDED_WEIGHT), with `rowsOf` giving the current size of a table; Infinity for
 * correlated reads, whose work grows with the data per row and is not bounded by any table's size.
 */
export function expectedWork(cost: ReadCost, rowsOf: (table: string) => number): number {
  if (cost.correlated) return Infinity;
  let work = 0;
  for (const t of cost.scans) work += rowsOf(t);
  // A page without $top may hold the page size (thousands), but a small table cannot fill it.
  const rows = cost.rows === 0 ? 0 : Math.min(cost.rows, rowsOf(cost.table));
  return work + rows * (OUTPUT_WEIGHT + EXPANDED_WEIGHT * expectedExpanded(cost.expansions, rowsOf));
}
