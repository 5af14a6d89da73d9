/**
 * One level of a planned query: the row alias of its entity, the LEFT JOINs its single-valued
 * navigation paths need (one per distinct path), the LATERAL joins the dialect adds to build a row's
 * JSON (sql/dialect.ts jsonObject), and the enclosing level for lambda variables.
 */
import type { EntityType, NavigationProperty } from '../edm/model.js';
import type { LateralJoins } from '../sql/dialect.js';
import type { JoinNode, SelectNode } from '../sql/nodes.js';
import type { AliasGenerator } from './alias-generator.js';
import { navigationCondition } from './plan-navigation.js';

/** A query level (the outer query, or the inside of an any/all/$count subquery). */
export class QueryScope implements LateralJoins {
  readonly joins: JoinNode[] = [];
  private readonly joinAliases = new Map<string, string>();

  constructor(
    /** `$it` for the outer query, the lambda variable otherwise. */
    readonly variable: string,
    readonly type: EntityType,
    readonly alias: string,
    readonly aliases: AliasGenerator,
    readonly outer?: QueryScope,
  ) {}

  /** The scope a variable refers to (`$it` is the outermost query). */
  resolve(variable: string): QueryScope {
    if (variable === '$it') return this.outer === undefined ? this : this.outer.resolve(variable);
    if (variable === this.variable) return this;
    if (this.outer === undefined) throw new Error(`unbound variable ${variable}`);
    return this.outer.resolve(variable);
  }

  /** The alias of the row reached through `navigations` from this scope's row, joining as needed. */
  aliasThrough(navigations: readonly NavigationProperty[]): string {
    let alias = this.alias;
    let key = '';
    for (const nav of navigations) {
      key += `/${nav.name}`;
      let next = this.joinAliases.get(key);
      if (next === undefined) {
        next = this.aliases.fresh();
        this.joins.push({ type: 'LEFT', from: { kind: 'table', table: nav.target.table, alias: next }, on: navigationCondition(nav, alias, next) });
        this.joinAliases.set(key, next);
      }
      alias = next;
    }
    return alias;
  }

  joinLateral(query: SelectNode): string {
    const alias = this.aliases.fresh();
    this.joins.push({ type: 'CROSS', from: { kind: 'derived', query, alias, lateral: true } });
    return alias;
  }

  /** A nested scope for a subquery over `type` bound to `variable`. */
  nested(variable: string, type: EntityType): QueryScope {
    return new QueryScope(variable, type, this.aliases.fresh(), this.aliases, this);
  }
}
