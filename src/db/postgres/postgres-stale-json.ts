/**
 * Rows whose stored entity JSON (postgres-entity-json.ts) is not the JSON built from the database as
 * it is now: missing, or stale (a row written with the triggers off). The tests run it after every
 * PostgreSQL suite (test/helpers/test-service.ts); `UPDATE "<table>" SET "_entityJson" = NULL` mends
 * what it finds.
 */
import type { EdmModel } from '../../edm/model.js';
import { HIDDEN_COLUMNS } from '../../edm/model.js';
import { keepsEntityJson } from '../../edm/keeps-entity-json.js';
import { STORED_ROW_ALIAS, storedJsonParts } from '../../query/plan-stored-json.js';
import { col, select } from '../../sql/build.js';
import { compile } from '../../sql/compile.js';
import type { Statements } from '../engine.js';
import { postgresDialect } from './postgres-dialect.js';

/** Rows per table whose stored JSON differs from the one built now (tables with none left out). */
export async function staleEntityJson(s: Pick<Statements, 'get'>, model: EdmModel): Promise<Record<string, number>> {
  const stale: Record<string, number> = {};
  for (const type of model.entityTypes.filter(keepsEntityJson)) {
    const { json, joins } = storedJsonParts(type, postgresDialect);
    const count = select({
      columns: [{ expr: { kind: 'call', name: 'count', args: [{ kind: 'star' }] }, alias: 'n' }],
      from: { kind: 'table', table: type.table, alias: STORED_ROW_ALIAS },
      joins,
      where: { kind: 'binary', operator: 'IS DISTINCT FROM', left: col(STORED_ROW_ALIAS, HIDDEN_COLUMNS.entityJson), right: json },
    });
    const n = Number((await s.get(compile(count, postgresDialect)))?.['n'] ?? 0);
    if (n > 0) stale[type.table] = n;
  }
  return stale;
}
