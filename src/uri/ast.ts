/**
 * The typed syntax tree of an OData URL (OData 4.01 URL Conventions; ABNF construction rules).
 * The parser produces it without knowing the model; the binder (`bind-*.ts`) resolves names and types.
 * Every node is a discriminated union member on `kind`; spans are character offsets into the
 * percent-decoded text of the option (or of the path) the node came from.
 */

/** Half-open character range [start, end) in the decoded option text. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

// ---------------------------------------------------------------------------------------------
// Primitive literals (ABNF `primitiveLiteral`)

/** A primitive literal; numeric values keep their source text so no precision is lost. */
export type Literal =
  | { readonly kind: 'null' }
  | { readonly kind: 'boolean'; readonly value: boolean }
  /** An integer without sign loss: `value` is the decimal text, e.g. "-42". */
  | { readonly kind: 'integer'; readonly value: string }
  /** A decimal with a fractional part and no exponent, e.g. "1.50". */
  | { readonly kind: 'decimal'; readonly value: string }
  /** A number with an exponent, or INF / -INF / NaN, e.g. "1.5e3". */
  | { readonly kind: 'double'; readonly value: string }
  /** A string, already unescaped (`''` → `'`). */
  | { readonly kind: 'string'; readonly value: string }
  /** A GUID, lower-cased: "2f0c0a6e-0000-4000-8000-000000000001". */
  | { readonly kind: 'guid'; readonly value: string }
  /** "YYYY-MM-DD" */
  | { readonly kind: 'date'; readonly value: string }
  /** As written, e.g. "2024-01-15T10:00:00Z", "2024-01-15T10:00:00.123+01:00". */
  | { readonly kind: 'dateTimeOffset'; readonly value: string }
  /** "HH:MM[:SS[.fff]]" */
  | { readonly kind: 'timeOfDay'; readonly value: string }
  /** The ISO 8601 duration text inside duration'...', e.g. "P1DT2H". */
  | { readonly kind: 'duration'; readonly value: string }
  /** The base64url text inside binary'...'. */
  | { readonly kind: 'binary'; readonly value: string }
  /** A qualified enum literal `Microsoft.NAV.ecnStatus'Approved'`; members split on ','. */
  | { readonly kind: 'enum'; readonly typeName: string; readonly members: readonly string[] }
  /** A geography/geometry literal; kept as text (the service has no spatial types). */
  | { readonly kind: 'geo'; readonly text: string };

// ---------------------------------------------------------------------------------------------
// Expressions (ABNF `commonExpr` / `boolCommonExpr`)

/** Binary operators in OData precedence groups (URL Conventions §5.1.1, Table "Operator precedence"). */
export type BinaryOperator =
  | 'or'
  | 'and'
  | 'eq'
  | 'ne'
  | 'gt'
  | 'ge'
  | 'lt'
  | 'le'
  | 'has'
  | 'in'
  | 'add'
  | 'sub'
  | 'mul'
  | 'div'
  | 'divby'
  | 'mod';

/** One segment of a member path: a property/navigation name or a type cast (qualified name). */
export type MemberSegment =
  | { readonly kind: 'name'; readonly name: string; readonly span: Span }
  | { readonly kind: 'cast'; readonly typeName: string; readonly span: Span }
  /** `$count` at the end of a collection path, e.g. `engChangeNoticeComments/$count gt 2`. */
  | {
      readonly kind: 'count';
      readonly span: Span;
      /** `$count($filter=...)` restricts what is counted (ABNF `collectionPathExpr`). */
      readonly filter?: Expr;
      /** `$count($search=...)`, kept as text. */
      readonly search?: string;
    }
  /** A key predicate after a collection segment, e.g. `Items(1)` or `$root/Employees('A1245')`. */
  | { readonly kind: 'key'; readonly key: KeyPredicate; readonly span: Span }
  /** A bound function call inside a path, e.g. `Model.BestProduct()`; parameters are named (ABNF `functionExpr`). */
  | {
      readonly kind: 'function';
      readonly name: string;
      readonly params: readonly { readonly name: string; readonly value: Expr }[];
      readonly span: Span;
    }
  /** A `$filter(...)` segment restricting a collection (URL Conventions 4.01 §4.12). */
  | { readonly kind: 'filter'; readonly predicate: Expr; readonly span: Span }
  /** An annotation value, e.g. `@Core.Messages` or `@Measures.Currency#Reporting` (URL Conventions §5.1.1.16). */
  | { readonly kind: 'annotation'; readonly term: string; readonly span: Span };

/** An expression node. */
export type Expr =
  | { readonly kind: 'literal'; readonly literal: Literal; readonly span: Span }
  /** A member path, e.g. `status`, `engChangeOrder/number`; `root` is `$it`/`$root`/lambda variable. */
  | {
      readonly kind: 'member';
      readonly root: MemberRoot;
      readonly segments: readonly MemberSegment[];
      readonly span: Span;
    }
  | {
      readonly kind: 'binary';
      readonly operator: BinaryOperator;
      readonly left: Expr;
      readonly right: Expr;
      readonly span: Span;
    }
  | { readonly kind: 'not'; readonly operand: Expr; readonly span: Span }
  /** Arithmetic negation `-x` of a non-literal. */
  | { readonly kind: 'negate'; readonly operand: Expr; readonly span: Span }
  /**
   * A canonical function call (`contains`, `year`...), `isof`/`cast` and `case`. Namespace-qualified
   * functions take named parameters and are member paths with a `function` segment instead.
   */
  | {
      readonly kind: 'call';
      readonly name: string;
      readonly args: readonly Expr[];
      /** For `cast`/`isof`: the type name argument (`Edm.Int32`, `Collection(NS.T)`); `args` holds the optional operand. */
      readonly typeName?: string;
      readonly span: Span;
    }
  /** `path/any(d: predicate)`, `path/all(d: predicate)`, `path/any()` (no variable, no predicate). */
  | {
      readonly kind: 'lambda';
      readonly operator: 'any' | 'all';
      readonly collection: Extract<Expr, { kind: 'member' }>;
      readonly variable?: string;
      readonly predicate?: Expr;
      readonly span: Span;
    }
  /** A parenthesised list `(a,b,c)`, the right operand of `in`. */
  | { readonly kind: 'list'; readonly items: readonly Expr[]; readonly span: Span }
  /** A parameter alias `@p`, resolved by the binder from the query's alias definitions. */
  | { readonly kind: 'alias'; readonly name: string; readonly span: Span }
  /** A JSON array or object literal (ABNF `arrayOrObject`), kept as raw text. */
  | { readonly kind: 'json'; readonly text: string; readonly span: Span };

/** What a member path starts from. */
export type MemberRoot =
  | { readonly kind: 'it' } /** implicit or `$it` */
  | { readonly kind: 'root' } /** `$root/...` */
  | { readonly kind: 'this' } /** `$this` */
  | { readonly kind: 'variable'; readonly name: string } /** a lambda variable */
  | { readonly kind: 'alias'; readonly name: string }; /** a parameter alias used as a path root, e.g. `@m/FirstName` */

// ---------------------------------------------------------------------------------------------
// $apply (OData Data Aggregation Extension 4.0 §3; ABNF `applyExpr` of odata-aggregation-abnf)

/** A member path expression (names, casts, keys... as the expression parser reads them). */
export type MemberExpr = Extract<Expr, { kind: 'member' }>;

/** The standard aggregation methods (Data Aggregation §3.1.3). */
export type StandardAggregation = 'sum' | 'min' | 'max' | 'average' | 'countdistinct';

/** The method after `with`: a standard one, or a namespace-qualified custom aggregation method. */
export type AggregateMethod =
  | { readonly kind: 'standard'; readonly name: StandardAggregation }
  | { readonly kind: 'custom'; readonly name: string };

/** A `from` clause of an aggregate expression (ABNF `aggregateFrom` / `customFrom`). */
export interface AggregateFrom {
  readonly groupBy: readonly MemberExpr[];
  readonly method?: AggregateMethod;
  readonly span: Span;
}

/** One aggregate expression (ABNF `aggregateExpr`). */
export type AggregateItem =
  /** `$count as n`, or `path/$count as n` (ABNF `aggregateCount`): `path` is empty for `$count`. */
  | { readonly kind: 'count'; readonly path: readonly MemberSegment[]; readonly from: readonly AggregateFrom[]; readonly alias: string; readonly span: Span }
  /** `expr with method as alias` (ABNF `aggregatableExpW`, `nonprimAggWith`). */
  | { readonly kind: 'method'; readonly expr: Expr; readonly method: AggregateMethod; readonly from: readonly AggregateFrom[]; readonly alias: string; readonly span: Span }
  /** A custom aggregate reached by a path (ABNF `aggregateCustom`), alias optional. */
  | { readonly kind: 'custom'; readonly path: MemberExpr; readonly from: readonly AggregateFrom[]; readonly alias?: string; readonly span: Span };

/** One element of a `groupby` list (ABNF `groupbyElement`). */
export type GroupingItem =
  | { readonly kind: 'path'; readonly path: MemberExpr; readonly span: Span }
  /** `rollup(...)` or `rolluprecursive(...)`, kept by name only. */
  | { readonly kind: 'unsupported'; readonly name: string; readonly span: Span };

/** One transformation of an `applyExpr`. */
export type ApplyTransformation =
  | { readonly kind: 'aggregate'; readonly items: readonly AggregateItem[]; readonly span: Span }
  /** `groupby((p1,...)[, applyExpr])`: `then` is the transformation sequence applied to each group. */
  | { readonly kind: 'groupby'; readonly groupBy: readonly GroupingItem[]; readonly then?: readonly ApplyTransformation[]; readonly span: Span }
  | { readonly kind: 'filter'; readonly predicate: Expr; readonly span: Span }
  /** `orderby(...)`, `top(n)`, `skip(n)` and `identity`: transformations that keep the instances (§3.2). */
  | { readonly kind: 'orderby'; readonly items: readonly OrderByItem[]; readonly span: Span }
  | { readonly kind: 'top' | 'skip'; readonly count: number; readonly span: Span }
  | { readonly kind: 'identity'; readonly span: Span }
  /** `concat(applyExpr, applyExpr, ...)`: the union of each sequence applied to the same input (§3.3.1). */
  | { readonly kind: 'concat'; readonly branches: readonly (readonly ApplyTransformation[])[]; readonly span: Span }
  /**
   * A transformation of the grammar kept by name only (`compute`, `join`, `nest`, top/bottom
   * count/sum/percent, `search`, hierarchy transformations, a namespace-qualified custom function, ...).
   */
  | { readonly kind: 'unsupported'; readonly name: string; readonly span: Span };

// ---------------------------------------------------------------------------------------------
// Query options (ABNF `queryOptions`)

/** `$orderby` item. */
export interface OrderByItem {
  readonly expr: Expr;
  readonly direction: 'asc' | 'desc';
  readonly span: Span;
}

/** `$select` item: a property path (`a/b`), `*`, or a qualified action/namespace `*`. */
export type SelectItem =
  | {
      readonly kind: 'path';
      readonly segments: readonly MemberSegment[];
      /** Nested options, e.g. `Addresses($filter=...;$top=5)` (ABNF `selectOption`). */
      readonly options?: NestedQueryOptions;
      readonly span: Span;
    }
  | { readonly kind: 'star'; readonly span: Span }
  | { readonly kind: 'qualifiedStar'; readonly namespace: string; readonly span: Span }
  | {
      readonly kind: 'operation';
      readonly qualifiedName: string;
      /** Overload signature `f(a,b)`: the names of the non-binding parameters. */
      readonly parameterNames?: readonly string[];
      readonly span: Span;
    };

/** `$expand` item with its nested options. */
export interface ExpandItem {
  /** Navigation path (names and casts); empty when `star` is true. */
  readonly path: readonly MemberSegment[];
  /** `*` (expand every navigation). */
  readonly star: boolean;
  /** `/$ref` suffix. */
  readonly ref: boolean;
  /** `/$count` suffix. */
  readonly count: boolean;
  /** The item is `$value` (expand the media stream inline); `path` is empty. */
  readonly value?: boolean;
  /** Nested options in parentheses, separated by `;`. */
  readonly options: NestedQueryOptions;
  readonly span: Span;
}

/** Options allowed inside `$expand=nav(...)`. */
export interface NestedQueryOptions {
  readonly filter?: Expr;
  readonly select?: readonly SelectItem[];
  readonly expand?: readonly ExpandItem[];
  readonly orderby?: readonly OrderByItem[];
  readonly top?: number;
  readonly skip?: number;
  readonly count?: boolean;
  /** `$levels=N` or `max`. */
  readonly levels?: number | 'max';
  readonly search?: string;
  readonly compute?: string;
  /** `$apply`: the transformations in order (Data Aggregation §3; also allowed inside `$expand`, ABNF `expandOption`). */
  readonly apply?: readonly ApplyTransformation[];
  /** `@name=value` parameter aliases defined inside the parentheses, e.g. `$expand=X(@m=$this;...)`. */
  readonly aliases?: ReadonlyMap<string, Expr>;
}

/** All query options of a request. Unknown `$`-options are a syntax error; custom options are kept. */
export interface QueryOptions extends NestedQueryOptions {
  readonly skiptoken?: string;
  readonly format?: string;
  readonly deltatoken?: string;
  readonly index?: number;
  readonly schemaversion?: string;
  /** `$id` of `$entity?$id=...` (URL Conventions §4.3.4), decoded. */
  readonly id?: string;
  /** `@name=value` parameter aliases, parsed as expressions. */
  readonly aliases: ReadonlyMap<string, Expr>;
  /** Custom (non-`$`) options, e.g. `company=CRONUS`, decoded. */
  readonly custom: ReadonlyMap<string, string>;
}

// ---------------------------------------------------------------------------------------------
// Resource path (ABNF `resourcePath`), without the service root

/** A key predicate: `(value)` or `(name=value,...)`. */
export type KeyPredicate =
  | { readonly kind: 'single'; readonly value: Literal | AliasRef; readonly span: Span }
  | {
      readonly kind: 'named';
      readonly pairs: readonly { readonly name: string; readonly value: Literal | AliasRef }[];
      readonly span: Span;
    };

/** A parameter alias used as a key value. */
export interface AliasRef {
  readonly kind: 'aliasRef';
  readonly name: string;
}

/** One path segment. */
export type PathSegment =
  /** An identifier (entity set, navigation, property, action...) with an optional key predicate. */
  | {
      readonly kind: 'identifier';
      readonly name: string;
      readonly key?: KeyPredicate;
      /** Function(-import) parameters: `F()` gives `[]`; with two groups `F(a=1)(2)` the first are parameters. */
      readonly params?: readonly { readonly name: string; readonly value: Expr }[];
      readonly span: Span;
    }
  /** A namespace-qualified name: bound action/function or type cast, e.g. `Microsoft.NAV.createEngChangeOrder`. */
  | {
      readonly kind: 'qualified';
      readonly name: string;
      /** Function parameters `(a=1,b='x')`, when present. */
      readonly params?: readonly { readonly name: string; readonly value: Expr }[];
      readonly key?: KeyPredicate;
      readonly span: Span;
    }
  | { readonly kind: 'count'; readonly span: Span }
  | { readonly kind: 'value'; readonly span: Span }
  | { readonly kind: 'ref'; readonly span: Span }
  /**
   * A segment that is not a name: a key-as-segment value (`People/O'Neil`) or an ordinal index
   * (`Addresses/-1`). Decoded text; the binder decides (this service uses neither).
   */
  | { readonly kind: 'literalSegment'; readonly text: string; readonly span: Span }
  /** `$filter(...)` path segment (URL Conventions 4.01 §4.12). */
  | { readonly kind: 'filter'; readonly predicate: Expr; readonly span: Span }
  /** `$each` (§4.12), `$query` (§4.17) and `$all` (§4.16) segments. */
  | { readonly kind: 'each'; readonly span: Span }
  | { readonly kind: 'query'; readonly span: Span }
  | { readonly kind: 'all'; readonly span: Span }
  /** `$crossjoin(A,B)` (§4.15). */
  | { readonly kind: 'crossjoin'; readonly entitySets: readonly string[]; readonly span: Span }
  | { readonly kind: 'metadata'; readonly span: Span }
  | { readonly kind: 'batch'; readonly span: Span }
  | { readonly kind: 'entity'; readonly span: Span };

/** A parsed resource path: the segments after the service root; empty for the service document. */
export interface ResourcePath {
  readonly segments: readonly PathSegment[];
}
