/**
 * The columns a write returns for the row it wrote (INSERT/UPDATE ... RETURNING): the same values,
 * under the same names, as reading the row back (core/resolve-path.ts readRow), computed properties
 * included, so that a write answers without a second statement.
 */
import { entityColumns } from '../query/plan-read.js';
import { AliasGenerator } from '../query/alias-generator.js';
import type { EntityType } from '../edm/model.js';
import type { Returning } from '../sql/nodes.js';

/**
 * The entity's columns referring to its table by name (RETURNING cannot use an alias on SQLite); the
 * subqueries of computed properties take fresh aliases other than that name, so they never hide it.
 */
export function storedColumns(type: EntityType): Returning {
  return entityColumns(type, type.table, new AliasGenerator(type.table));
}
