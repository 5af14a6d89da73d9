/**
 * Navigation joins as SQL conditions: how rows of a navigation's target relate to a source row.
 * Company-scoped on both sides means same company too, so a join can never cross companies.
 */
import { HIDDEN_COLUMNS, type NavigationProperty } from '../edm/model.js';
import { and, col, eq, select } from '../sql/build.js';
import type { SelectNode, SqlExpr } from '../sql/nodes.js';
import type { AliasGenerator } from './alias-generator.js';

/** The ON/WHERE condition joining `sourceAlias` rows to `targetAlias` rows along `nav`. */
export function navigationCondition(nav: NavigationProperty, sourceAlias: string, targetAlias: string): SqlExpr {
  const parts: SqlExpr[] = nav.joins.map((j) => eq(col(targetAlias, j.targetProperty), col(sourceAlias, j.sourceProperty)));
  if (nav.source.scope === 'company' && nav.target.scope === 'company') {
    parts.push(eq(col(targetAlias, HIDDEN_COLUMNS.company), col(sourceAlias, HIDDEN_COLUMNS.company)));
  }
  return and(...parts) as SqlExpr;
}

/** `SELECT <columns> FROM target WHERE <join to sourceAlias>`: the correlated rows of a navigation. */
export function correlatedTarget(
  nav: NavigationProperty,
  sourceAlias: string,
  aliases: AliasGenerator,
  columns: (targetAlias: string) => SelectNode['columns'],
): SelectNode {
  const t = aliases.fresh();
  return select({
    columns: columns(t),
    from: { kind: 'table', table: nav.target.table, alias: t },
    where: navigationCondition(nav, sourceAlias, t),
  });
}
