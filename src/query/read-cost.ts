/**
 * The cost model of a read (issue: no request may block the service): what a read may examine and
 * return, known from its plan, and priced with the sizes of its tables when it runs. A read whose
 * expected work is small runs on the event loop (the fast path every plain GET takes); a read whose
 * work grows with the data (lambdas, large scans, many or large expansions) runs in a read thread with
 * a deadline (db/sqlite/sqlite-read-executor.ts), so the other requests keep being answered meanwhile.
 */
import type { EntityType } from '../edm/model.js';
import { assertNever } from '../util/assert-never.js';
import type { BoundExpr } from './bound-ast.js';
import type { ExpandPlan } from './plan-expand.js';
import type { PlannedQuery } from './plan-query.js';

/**
 * A lambda or `$count` over a collection, as the cost model sees it: for one row of `source` it
 * examines the related rows of `target`, and for each of them its nested walks.
 */
export interface CollectionWalk {
  readonly source: string;
  readonly target: string;
  readonly nested: readonly CollectionWalk[];
}

/** An expansion as the cost model sees it. */
export interface ExpansionCost {
  readonly source: string;
  readonly target: string;
  readonly collection: boolean;
  /** Most entities under one parent (its cap; 1 when single-valued). */
  readonly cap: number;
  readonly nested: readonly ExpansionCost[];
  /** The walks of the expansion's own $filter and $orderby, for each entity it expands. */
  readonly walks: readonly CollectionWalk[];
}

/** What a read may cost, from its plan. */
export interface ReadCost {
  /** Work per row that grows with related rows (a lambda or $count over a collection). */
  readonly correlated: boolean;
  /** The lambdas and `$count`s over collections of its $filter and $orderby, made for each row of `table` it examines. */
  readonly walks: readonly CollectionWalk[];
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
  return plans.map((p) => ({ source: source.table, target: p.nav.target.table, collection: p.nav.collection, cap: p.cap, nested: expansionCosts(p.expand, p.nav.target), walks: p.walks }));
}

function signature(plans: readonly ExpandPlan[]): string {
  return plans.map((p) => (p.expand.length === 0 ? p.nav.name : `${p.nav.name}(${signature(p.expand)})`)).join(',');
}

/** The cost of a read of `type` planned as `query`, returning at most `rows` entities (0 for a count alone). */
export function readCost(kind: 'collection' | 'entity' | 'count', type: EntityType, query: PlannedQuery, rows: number, skip: number): ReadCost {
  const scansWhole = kind === 'count' || query.count || (kind === 'collection' && (query.filtered || query.ordered));
  const costClass = [kind, type.name, query.filtered ? 'f' : '', query.ordered ? 'o' : '', query.count ? 'c' : '', signature(query.expand)].join('|');
  return { correlated: query.correlated, walks: query.walks, scans: scansWhole ? [type.table] : [], table: type.table, rows: rows + skip, expansions: expansionCosts(query.expand, type), costClass };
}

/** The walks over collections in an expression, outermost first (each with those nested in its predicate). */
export function collectionWalks(e: BoundExpr): CollectionWalk[] {
  switch (e.kind) {
    case 'literal':
    case 'property':
    case 'result':
      return [];
    case 'compare':
    case 'logical':
    case 'arithmetic':
      return [...collectionWalks(e.left), ...collectionWalks(e.right)];
    case 'not':
    case 'negate':
    case 'has':
      return collectionWalks(e.operand);
    case 'in':
      return [...collectionWalks(e.operand), ...e.items.flatMap(collectionWalks)];
    case 'call':
      return e.args.flatMap(collectionWalks);
    case 'lambda':
    case 'count': {
      const inner = e.kind === 'lambda' ? e.predicate : e.filter;
      const owner = e.navigations[e.navigations.length - 1]?.target ?? e.root.type;
      return [{ source: owner.table, target: e.collection.target.table, nested: inner === undefined ? [] : collectionWalks(inner) }];
    }
    default:
      return assertNever(e, 'bound expression');
  }
}

/** The average related rows of a walk for one row of its source. */
function fanOut(source: string, target: string, rowsOf: (table: string) => number): number {
  return rowsOf(target) / Math.max(1, rowsOf(source));
}

/**
 * Rows the walks examine for one row, the related rows spread evenly over their parents: the least a
 * full evaluation examines (skew only adds: a row's siblings, walked from each of them, cost the sum of
 * the squares of the families' sizes), though an any() that meets a match stops early.
 */
function walkRows(walks: readonly CollectionWalk[], rowsOf: (table: string) => number): number {
  let n = 0;
  for (const w of walks) n += fanOut(w.source, w.target, rowsOf) * (1 + walkRows(w.nested, rowsOf));
  return n;
}

/** Entities the expansions of one entity are expected to add (the average related rows per parent, within the caps), and the rows their walks examine, weighted. */
function expandedWork(expansions: readonly ExpansionCost[], rowsOf: (table: string) => number): number {
  let n = 0;
  for (const e of expansions) {
    const each = e.collection ? Math.min(e.cap, fanOut(e.source, e.target, rowsOf)) : 1;
    n += each * (EXPANDED_WEIGHT + walkRows(e.walks, rowsOf) + expandedWork(e.nested, rowsOf));
  }
  return n;
}

/**
 * The work of a read evaluated in full, in row units (a row examined is 1, an entity written
 * OUTPUT_WEIGHT, an expanded one EXPANDED_WEIGHT), with `rowsOf` giving the current size of a table:
 * its scans, the walks of its lambdas for each row of its table, the entities it writes with their
 * expansions at their average fan-out. What a `$batch`'s reads are charged (limits.maxBatchWork).
 */
export function fullWork(cost: ReadCost, rowsOf: (table: string) => number): number {
  let work = 0;
  for (const t of cost.scans) work += rowsOf(t);
  if (cost.walks.length > 0) work += rowsOf(cost.table) * walkRows(cost.walks, rowsOf);
  // A page without $top may hold the page size (thousands), but a small table cannot fill it.
  const rows = cost.rows === 0 ? 0 : Math.min(cost.rows, rowsOf(cost.table));
  return work + rows * (OUTPUT_WEIGHT + expandedWork(cost.expansions, rowsOf));
}

/**
 * The expected work of a read in row units (fullWork), Infinity for correlated reads: where a read
 * runs, their work grows with the data per row, and no average bounds one family's size.
 */
export function expectedWork(cost: ReadCost, rowsOf: (table: string) => number): number {
  if (cost.correlated) return Infinity;
  return fullWork(cost, rowsOf);
}
