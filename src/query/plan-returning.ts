/**
 * The columns a write returns for the row it wrote (INSERT/UPDATE ... RETURNING): the same values,
 * under the same names, as reading the row back (store/resolve-path.ts readRow), computed properties
 * included, so that a write answers without a second statement. Only where RETURNING gives what a
 * read after the write gives: a subquery in RETURNING sees the table as it was before the statement
 * on PostgreSQL, and every engine computes RETURNING before the AFTER triggers that keep row counters,
 * so a type whose computed properties read its own table (a lookup path that comes back to it, a
 * counter of a navigation to itself) is read back instead.
 */
import { entityColumns } from './plan-select.js';
import { AliasGenerator } from './alias-generator.js';
import type { EntityType } from '../edm/model.js';
import type { Returning } from '../sql/nodes.js';
import { assertNever } from '../util/assert-never.js';

/**
 * The entity's columns referring to its table by name (RETURNING cannot use an alias on SQLite); the
 * subqueries of computed properties take fresh aliases other than that name, so they never hide it.
 */
export function returningColumns(type: EntityType): Returning {
  return entityColumns(type, type.table, new AliasGenerator(type.table));
}

const returnable = new WeakMap<EntityType, boolean>();

/** true when a write of `type` can return its row (see the file comment); false: write, then read back. */
export function writeReturnsRow(type: EntityType): boolean {
  let yes = returnable.get(type);
  if (yes === undefined) {
    yes = !readsOwnTable(type);
    returnable.set(type, yes);
  }
  return yes;
}

function readsOwnTable(type: EntityType): boolean {
  for (const p of type.properties) {
    if (p.storage.kind !== 'computed') continue;
    const computed = p.storage.computed;
    switch (computed.kind) {
      case 'lookup':
        if (pathReaches(type, computed.path, type.table)) return true;
        break;
      case 'firstNonEmpty':
        if (computed.paths.some((path) => pathReaches(type, path, type.table))) return true;
        break;
      case 'exists':
        if (type.navigationByName.get(computed.navigation)?.target.table === type.table) return true;
        break;
      default:
        return assertNever(computed, 'computed value');
    }
  }
  return false;
}

/** true when a hop of `path` (navigations, then a property) from `from` lands on `table`. */
function pathReaches(from: EntityType, path: readonly string[], table: string): boolean {
  let at = from;
  for (const name of path.slice(0, -1)) {
    const nav = at.navigationByName.get(name);
    if (nav === undefined) return false;
    if (nav.target.table === table) return true;
    at = nav.target;
  }
  return false;
}
