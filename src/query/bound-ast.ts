/**
 * Expressions after binding (URL Conventions §5.1.1): every name resolved against the model, every
 * literal typed and converted to its stored form, every node typed. Planners turn these into SQL.
 */
import type { EntityType, NavigationProperty, Property, PropertyType, EnumType } from '../edm/model.js';
import type { StoredValue } from '../edm/values.js';

/** The type of a bound expression. */
export type ExprType =
  | PropertyType
  /** The type of the `null` literal before it meets an operand. */
  | { readonly kind: 'null' };

/** A property of aggregated instances (Data Aggregation §3): a grouping path or an aggregate alias. */
export interface ResultColumn {
  /** The path as written, `status` or `engChangeNotice/status`; an alias for aggregated values. */
  readonly name: string;
  readonly type: ExprType;
  /** The SQL column holding it (`c0`, `c1`, ...): names written in the URL never become SQL identifiers. */
  readonly column: string;
}

/** The properties of the instances a `$apply` transformation produces, by name. */
export type ResultShape = ReadonlyMap<string, ResultColumn>;

/** Where a property path starts: the entity being filtered, or a lambda variable's entity. */
export interface PathRoot {
  /** `$it` = the outer entity; otherwise a lambda variable name. */
  readonly variable: string;
  readonly type: EntityType;
  /** Set after an aggregating transformation: paths name the aggregated instances' properties, not the type's. */
  readonly result?: ResultShape;
}

/** Canonical functions this service evaluates (URL Conventions §5.1.1.5–5.1.1.8). */
export type CanonicalFunction =
  | 'contains'
  | 'startswith'
  | 'endswith'
  | 'length'
  | 'indexof'
  | 'substring'
  | 'tolower'
  | 'toupper'
  | 'trim'
  | 'concat'
  | 'matchesPattern'
  | 'year'
  | 'month'
  | 'day'
  | 'hour'
  | 'minute'
  | 'second'
  | 'fractionalseconds'
  | 'date'
  | 'time'
  | 'now'
  | 'round'
  | 'floor'
  | 'ceiling';

/** Comparison operators. */
export type CompareOperator = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le';
/** Arithmetic operators. */
export type ArithmeticOperator = 'add' | 'sub' | 'mul' | 'div' | 'divby' | 'mod';

/** A bound expression. */
export type BoundExpr =
  | { readonly kind: 'literal'; readonly type: ExprType; readonly value: StoredValue }
  /** A property reached from `root` through single-valued navigations. */
  | {
      readonly kind: 'property';
      readonly root: PathRoot;
      readonly navigations: readonly NavigationProperty[];
      readonly property: Property;
      readonly type: ExprType;
    }
  | { readonly kind: 'compare'; readonly operator: CompareOperator; readonly left: BoundExpr; readonly right: BoundExpr; readonly type: ExprType }
  | { readonly kind: 'logical'; readonly operator: 'and' | 'or'; readonly left: BoundExpr; readonly right: BoundExpr; readonly type: ExprType }
  | { readonly kind: 'not'; readonly operand: BoundExpr; readonly type: ExprType }
  | { readonly kind: 'arithmetic'; readonly operator: ArithmeticOperator; readonly left: BoundExpr; readonly right: BoundExpr; readonly type: ExprType }
  | { readonly kind: 'negate'; readonly operand: BoundExpr; readonly type: ExprType }
  | { readonly kind: 'in'; readonly operand: BoundExpr; readonly items: readonly BoundExpr[]; readonly type: ExprType }
  /** `x has Ns.Enum'M'`: for the service's non-flag enums, the value is that member. */
  | { readonly kind: 'has'; readonly operand: BoundExpr; readonly member: string; readonly enumType: EnumType; readonly type: ExprType }
  | { readonly kind: 'call'; readonly fn: CanonicalFunction; readonly args: readonly BoundExpr[]; readonly type: ExprType }
  /** `nav/any(v: p)` / `nav/all(v: p)` over a collection navigation reached through single-valued ones. */
  | {
      readonly kind: 'lambda';
      readonly operator: 'any' | 'all';
      readonly root: PathRoot;
      readonly navigations: readonly NavigationProperty[];
      readonly collection: NavigationProperty;
      readonly variable: PathRoot;
      readonly predicate?: BoundExpr;
      readonly type: ExprType;
    }
  /** A property of aggregated instances (a column of the previous `$apply` stage). */
  | { readonly kind: 'result'; readonly name: string; readonly column: string; readonly type: ExprType }
  /** `nav/$count` (optionally `$count($filter=...)`). */
  | {
      readonly kind: 'count';
      readonly root: PathRoot;
      readonly navigations: readonly NavigationProperty[];
      readonly collection: NavigationProperty;
      readonly filter?: BoundExpr;
      readonly type: ExprType;
    };

/** Boolean type. */
export const BOOLEAN: ExprType = { kind: 'primitive', name: 'Edm.Boolean' };
