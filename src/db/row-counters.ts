/**
 * Counts of related rows kept in hidden columns of the source table, for `exists` computed properties
 * (bomExists: the ECN has BOM lines): a read tests a column instead of running a correlated EXISTS per
 * row. Each engine keeps them with triggers of its own (sqlite/sqlite-row-counters.ts,
 * postgres/postgres-row-counters.ts).
 */
import { counterColumn, type EntityType, type NavigationProperty } from '../edm/model.js';

/** A maintained count: rows of `nav.target` related to each row of `nav.source`. */
export interface RowCounter {
  readonly nav: NavigationProperty;
  /** The hidden column of the source table. */
  readonly column: string;
}

/** The counters a type's table holds (one per navigation tested by an `exists` property). */
export function rowCountersOf(type: EntityType): RowCounter[] {
  const out = new Map<string, RowCounter>();
  for (const p of type.properties) {
    if (p.storage.kind !== 'computed' || p.storage.computed.kind !== 'exists') continue;
    const nav = type.navigationByName.get(p.storage.computed.navigation);
    if (nav === undefined) throw new Error(`unknown navigation ${p.storage.computed.navigation}`);
    out.set(nav.name, { nav, column: counterColumn(nav.name) });
  }
  return [...out.values()];
}
