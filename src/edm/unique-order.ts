/**
 * Whether sorting by some columns of a type already puts the rows of one company in one order: the
 * columns include every column of a unique property or of an alternate key, none of them nullable
 * (NULLs repeat in a unique index). The read planner then appends no key to the ORDER BY
 * (query/plan-select.ts), and PostgreSQL's index derived for the default order ends with the key only
 * when it does not (db/table-defs.ts `keyEndsOrder`), so that index gives the rows in the order asked for.
 */
import type { EntityType, Property } from './model.js';

export function sortsUniquely(type: EntityType, columns: ReadonlySet<string>): boolean {
  const covers = (props: readonly Property[]): boolean => props.length > 0 && props.every((p) => !p.nullable && p.storage.kind === 'column' && columns.has(p.name));
  return type.properties.some((p) => p.unique && covers([p])) || type.alternateKeys.some(covers);
}
