/**
 * The entity JSON a row keeps where the engine keeps it (EngineCapabilities.storedEntityJson; the triggers of
 * db/postgres/postgres-entity-json.ts and db/sqlite/sqlite-entity-json.ts): its definition, the same object plan-entity-json.ts
 * builds for odata.metadata=minimal with every property, and what it depends on, so the triggers know
 * when to build it again: the row's own columns, and the rows its lookups read (another row's change
 * changes a lookup without changing this row).
 */
import { counterColumn, HIDDEN_COLUMNS, type EntityType, type NavigationProperty } from '../edm/model.js';
import { and, col, select } from '../sql/build.js';
import type { Dialect } from '../sql/dialect.js';
import type { FromItem, JoinNode, SelectNode, SqlExpr } from '../sql/nodes.js';
import { assertNever } from '../util/assert-never.js';
import { AliasGenerator } from './alias-generator.js';
import { entityJsonExpr } from './plan-entity-json.js';
import { navigationCondition } from './plan-navigation.js';
import { entityColumns } from './plan-select.js';
import { QueryScope } from './query-scope.js';

/** Alias of the row in storedJsonSelect. */
export const STORED_ROW_ALIAS = 't0';

/** The entity JSON of the row at STORED_ROW_ALIAS, and the joins of that row's level it needs. */
export interface StoredJsonParts {
  readonly json: SqlExpr;
  readonly joins: readonly JoinNode[];
}

/** The JSON a row of `type` keeps, built from its columns. Links need no service URL: types with media properties keep no JSON. */
export function storedJsonParts(type: EntityType, dialect: Dialect): StoredJsonParts {
  const aliases = new AliasGenerator();
  const t = aliases.fresh();
  if (t !== STORED_ROW_ALIAS) throw new Error('the first alias is not t0');
  const scope = new QueryScope('$it', type, t, aliases);
  const columns = entityColumns(type, t, aliases);
  const json = entityJsonExpr(type, columns, { dialect, metadata: 'minimal', links: { serviceRootUrl: '', prefix: '' }, ieee754Compatible: false, build: true }, undefined, [], scope).whole;
  return { json, joins: scope.joins };
}

/** `SELECT <the entity JSON of the row> FROM <row> AS t0`: `row` gives the row's columns under their names (a trigger's new row). */
export function storedJsonSelect(type: EntityType, dialect: Dialect, row: (alias: string) => FromItem): SelectNode {
  const { json, joins } = storedJsonParts(type, dialect);
  return select({ columns: [{ expr: json }], from: row(STORED_ROW_ALIAS), joins });
}

/**
 * What of the row itself the JSON reads, as expressions of the row at `alias`: its company, every
 * stored column, the version and stored ETag, and for each related-row counter only whether it is above zero (a
 * counter that moves from 3 to 4 changes nothing the JSON shows).
 */
export function storedJsonInputs(type: EntityType, alias: string): SqlExpr[] {
  const inputs: SqlExpr[] = [];
  // A lookup between company-scoped types joins on the company too: a row moved to another company reads other rows.
  if (type.scope === 'company') inputs.push(col(alias, HIDDEN_COLUMNS.company));
  for (const p of type.properties) if (p.storage.kind === 'column') inputs.push(col(alias, p.name));
  inputs.push(col(alias, HIDDEN_COLUMNS.version), col(alias, HIDDEN_COLUMNS.etag), col(alias, HIDDEN_COLUMNS.etagVersion));
  const counters = new Set<string>();
  for (const p of type.properties) if (p.storage.kind === 'computed' && p.storage.computed.kind === 'exists') counters.add(counterColumn(p.storage.computed.navigation));
  for (const c of counters) inputs.push({ kind: 'binary', operator: '>', left: col(alias, c), right: { kind: 'constant', value: 0 } });
  return inputs;
}

/**
 * Rows of another type (or another row of the same type) that a type's JSON reads through its
 * lookups: the rows reached from a `type` row through `navigations`. When such a row is written,
 * deleted or inserted and one of `columns` differs, the JSON of the `type` rows that reach it (before
 * or after the write) is built again.
 */
export interface StoredJsonDependency {
  readonly type: EntityType;
  readonly navigations: readonly NavigationProperty[];
  /** The table of the rows reached (the last navigation's target). */
  readonly table: string;
  /** Its columns the lookups read: join keys on both sides of the hop, the looked-up property, the company. */
  readonly columns: readonly string[];
  /** Those of them that decide which `type` rows reach it: the last hop's join keys and the company. */
  readonly keys: readonly string[];
}

/** The lookups' hops of `type`, one per distinct navigation path (paths that share one are merged). */
export function storedJsonDependencies(type: EntityType): StoredJsonDependency[] {
  const byPath = new Map<string, { navigations: NavigationProperty[]; columns: Set<string> }>();
  const walk = (path: readonly string[]): void => {
    const navigations: NavigationProperty[] = [];
    let at = type;
    path.forEach((name, i) => {
      if (i === path.length - 1) return;
      const nav = at.navigationByName.get(name);
      if (nav === undefined || nav.collection) throw new Error(`lookup through ${name} is not a single-valued navigation`);
      navigations.push(nav);
      const key = navigations.map((n) => `${n.source.name}.${n.name}`).join('/');
      let dep = byPath.get(key);
      if (dep === undefined) byPath.set(key, (dep = { navigations: [...navigations], columns: new Set() }));
      for (const j of nav.joins) dep.columns.add(j.targetProperty);
      if (nav.target.scope === 'company') dep.columns.add(HIDDEN_COLUMNS.company);
      const next = path[i + 1] as string;
      if (i + 1 === path.length - 1) dep.columns.add(next);
      else for (const j of nav.target.navigationByName.get(next)?.joins ?? []) dep.columns.add(j.sourceProperty);
      at = nav.target;
    });
  };
  for (const p of type.properties) {
    if (p.storage.kind !== 'computed') continue;
    const computed = p.storage.computed;
    switch (computed.kind) {
      case 'lookup':
        walk(computed.path);
        break;
      case 'firstNonEmpty':
        computed.paths.forEach(walk);
        break;
      case 'exists':
        break;
      default:
        assertNever(computed, 'computed value');
    }
  }
  return [...byPath.values()].map((d) => {
    const last = d.navigations.at(-1) as NavigationProperty;
    const keys = last.joins.map((j) => j.targetProperty);
    if (last.target.scope === 'company') keys.push(HIDDEN_COLUMNS.company);
    return { type, navigations: d.navigations, table: last.target.table, columns: [...d.columns], keys };
  });
}

/**
 * The condition on `dep.type`'s rows (by table name, as an UPDATE names them) that they reach the
 * row at `rowAlias` through `dep.navigations`: a join condition for one hop, an EXISTS over the
 * hops between for more.
 */
export function reachesRow(dep: StoredJsonDependency, rowAlias: string): SqlExpr {
  const aliases = new AliasGenerator(dep.type.table);
  const navs = dep.navigations;
  if (navs.length === 1) return navigationCondition(navs[0] as NavigationProperty, dep.type.table, rowAlias);
  const between = navs.slice(0, -1).map((nav) => ({ nav, alias: aliases.fresh() }));
  const first = between[0] as (typeof between)[number];
  const conditions: (SqlExpr | undefined)[] = [navigationCondition(first.nav, dep.type.table, first.alias)];
  between.slice(1).forEach((hop, i) => conditions.push(navigationCondition(hop.nav, (between[i] as (typeof between)[number]).alias, hop.alias)));
  conditions.push(navigationCondition(navs.at(-1) as NavigationProperty, (between.at(-1) as (typeof between)[number]).alias, rowAlias));
  const joins = between.slice(1).map((hop) => ({ type: 'CROSS' as const, from: { kind: 'table' as const, table: hop.nav.target.table, alias: hop.alias } }));
  const query = select({ columns: [{ expr: { kind: 'constant', value: 1 } }], from: { kind: 'table', table: first.nav.target.table, alias: first.alias }, joins, where: and(...conditions) });
  return { kind: 'exists', query, negated: false };
}
