/**
 * Plans the SELECT of an entity read: the columns of the entity (stored, computed, row version),
 * restricted to one company and to the conditions the path implies (key, parent reference).
 */
import { HIDDEN_COLUMNS, VERSION_ALIAS, type EntityType, type Property } from '../edm/model.js';
import type { StoredValue } from '../edm/values.js';
import { sortsUniquely } from '../edm/unique-order.js';
import { and, col, eq, param, select } from '../sql/build.js';
import type { OrderItem, SelectColumn, SelectNode, SqlExpr } from '../sql/nodes.js';
import { AliasGenerator } from './alias-generator.js';
import { computedExpr } from './plan-computed.js';
import { QueryScope } from './query-scope.js';
import type { EntityJson } from './plan-entity-json.js';
import type { JsonSplice } from './json-splice.js';

/** A column equality the path imposes (`id = key`, `engChangeNoticeId = parent id`). */
export interface PathCondition {
  readonly property: string;
  readonly value: StoredValue;
}

/** What to read. */
export interface ReadPlanInput {
  readonly type: EntityType;
  /** The company of a company-scoped type; required for those, ignored for global types. */
  readonly companyId: string | undefined;
  readonly conditions: readonly PathCondition[];
  /** Property names to return; undefined = all. The key is always returned. */
  readonly select?: ReadonlySet<string>;
  /** Extra filter, AND-ed to the path conditions; planned in the query's scope (it may add joins). */
  readonly where?: (scope: QueryScope) => SqlExpr | undefined;
  /** Sort order before the key (appended for stable pages unless the order is unique already: ordersUniquely). */
  readonly orderBy?: (scope: QueryScope) => readonly OrderItem[];
  /** More output columns (expansions, sort values for the next page's skiptoken). */
  readonly extraColumns?: (scope: QueryScope) => readonly SelectColumn[];
  readonly limit?: number;
  readonly offset?: number;
  /**
   * When set, the row is read as one JSON text column (`_json`, built from the entity columns) plus
   * the key and the version, instead of one column per property (see plan-entity-json.ts).
   */
  readonly json?: (scope: QueryScope, columns: readonly SelectColumn[]) => EntityJson;
  /**
   * With `json`: the expansions' values are columns of their own after all others, and the reader
   * splices them into the `_json` text (query/json-splice.ts), instead of the database.
   */
  readonly spliceJson?: true;
}

/** Alias of the count of a count statement, and of the count that page rows carry (plan-read-request.ts, plan-aggregated-request.ts). */
export const COUNT_ALIAS = 'n';

/** Alias of the entity JSON text column of reads planned with `json`. */
export const JSON_ALIAS = '_json';

/** The columns of an entity row: stored and computed properties (media excluded) plus the version. */
export function entityColumns(type: EntityType, alias: string, aliases: AliasGenerator, selected?: ReadonlySet<string>): SelectColumn[] {
  const columns: SelectColumn[] = [];
  for (const p of type.properties) {
    if (selected !== undefined && !selected.has(p.name) && p !== type.key) continue;
    switch (p.storage.kind) {
      case 'column':
        columns.push({ expr: col(alias, p.name), alias: p.name });
        break;
      case 'computed':
        columns.push({ expr: computedExpr(type, alias, p.storage.computed, aliases), alias: p.name });
        break;
      case 'media':
        break;
    }
  }
  columns.push({ expr: col(alias, HIDDEN_COLUMNS.version), alias: VERSION_ALIAS });
  return columns;
}

/** The condition restricting rows of `type` at `alias` to one company (undefined for global types). */
export function companyCondition(type: EntityType, alias: string, companyId: string | undefined): SqlExpr | undefined {
  if (type.scope !== 'company') return undefined;
  if (companyId === undefined) throw new Error(`company-scoped read of ${type.name} without a company`);
  return eq(col(alias, HIDDEN_COLUMNS.company), param(companyId));
}

/**
 * true when `order` already puts the rows of one company in one order: it sorts by every column of a
 * unique property or alternate key, none of them nullable (NULLs repeat in a unique index). Then the
 * key is not appended: PostgreSQL does not see that the key adds nothing and sorted what the index
 * gave it again (an incremental sort of a page of ECNs ordered by number, then id). Keyset paging
 * still compares the key (plan-page.ts), which changes nothing where these values are unique.
 */
export function ordersUniquely(type: EntityType, alias: string, order: readonly OrderItem[]): boolean {
  return sortsUniquely(type, new Set(order.flatMap((o) => (o.expr.kind === 'column' && o.expr.table === alias ? [o.expr.column] : []))));
}

/** Plans the SELECT for a read. Order: conditions, filter, order (key appended unless already unique), limit/offset. */
export function planSelect(input: ReadPlanInput): SelectNode {
  return planSplicedSelect(input).select;
}

/** planSelect, and with `spliceJson` how the reader splices a row's `_json` text (undefined when there is nothing to splice). */
export function planSplicedSelect(input: ReadPlanInput): { select: SelectNode; splice?: JsonSplice } {
  const aliases = new AliasGenerator();
  const t = aliases.fresh();
  const { type } = input;
  const scope = new QueryScope('$it', type, t, aliases);
  const entity = entityColumns(type, t, aliases, input.select);
  const json = input.json?.(scope, entity);
  const spliced = json !== undefined && input.spliceJson === true && json.members.length > 0;
  const columns =
    json === undefined
      ? entity
      : [
          { expr: spliced ? json.object : json.whole, alias: JSON_ALIAS },
          { expr: col(t, type.key.name), alias: type.key.name },
          { expr: col(t, HIDDEN_COLUMNS.version), alias: VERSION_ALIAS },
        ];
  const where = and(
    companyCondition(type, t, input.companyId),
    ...input.conditions.map((c) => eq(col(t, c.property), param(c.value))),
    input.where?.(scope),
  );
  const order: OrderItem[] = [...(input.orderBy?.(scope) ?? [])];
  if (!ordersUniquely(type, t, order)) order.push({ expr: col(t, type.key.name), direction: 'ASC', notNull: true });
  columns.push(...(input.extraColumns?.(scope) ?? []));
  // The members' values last, so the key, version and sort values keep their places (read.ts).
  const splice = spliced ? json.members.map((m, i) => (typeof m === 'string' ? m : columns.push({ expr: m, alias: `${SPLICED_PREFIX}${i}` }) - 1)) : undefined;
  const node = select({
    columns,
    from: { kind: 'table', table: type.table, alias: t },
    joins: scope.joins,
    where,
    orderBy: order,
    limit: input.limit === undefined ? undefined : param(input.limit),
    offset: input.offset === undefined || input.offset === 0 ? undefined : param(input.offset),
  });
  return splice === undefined ? { select: node } : { select: node, splice };
}

/** Aliases of the spliced members' value columns: `_m<index in the members>`. */
const SPLICED_PREFIX = '_m';
