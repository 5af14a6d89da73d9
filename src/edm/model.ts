/**
 * The runtime entity data model (EDM), built once at start-up from `metadata/` by `load-model.ts`.
 * Everything else (tables, $metadata, routes, body schemas, SQL) is derived from this one structure.
 * It is deeply read-only after loading; navigation targets are direct object references (cycles allowed).
 */
import type { ServiceLimits } from './service-limits.js';

/** The primitive EDM types the framework supports (OData CSDL §4.4), as a list for checks and suggestions. */
export const PRIMITIVE_TYPE_NAMES = ['Edm.Guid', 'Edm.String', 'Edm.Boolean', 'Edm.Int32', 'Edm.Int64', 'Edm.Decimal', 'Edm.Double', 'Edm.Date', 'Edm.DateTimeOffset', 'Edm.TimeOfDay', 'Edm.Stream'] as const;

/** The primitive EDM types the framework supports (OData CSDL §4.4). */
export type PrimitiveTypeName = (typeof PRIMITIVE_TYPE_NAMES)[number];

/** One member of an enumeration type; `name` as written in metadata, `encoded` as on the wire. */
export interface EnumMember {
  /** The member name as the business knows it, e.g. `Prod. Order` or ` ` (blank). */
  readonly name: string;
  /** The OData-encoded member name (XML name encoding), e.g. `Prod_x002E__x0020_Order`, `_x0020_`. */
  readonly encoded: string;
  readonly value: number;
}

/** An enumeration type (CSDL §10). Values are stored and sent as the encoded member name. */
export interface EnumType {
  readonly name: string;
  /** `Microsoft.NAV.ecnStatus` */
  readonly qualifiedName: string;
  readonly members: readonly EnumMember[];
  readonly memberByEncoded: ReadonlyMap<string, EnumMember>;
  readonly description?: string;
  /** Metadata file the type came from (for error messages). */
  readonly source: string;
}

/** The type of a structural property. */
export type PropertyType =
  | { readonly kind: 'primitive'; readonly name: PrimitiveTypeName }
  | { readonly kind: 'enum'; readonly enumType: EnumType };

/**
 * Who may write a property through the API.
 * - `always`: POST and PATCH;
 * - `create`: POST only (e.g. a client-chosen `id`, a child's parent reference); PATCH → 400;
 * - `never`: read-only (computed or set by the service); POST or PATCH → 400 BadRequest_InvalidOperation.
 */
export type Writability = 'always' | 'create' | 'never';

/** How the service fills a property that a POST did not give. */
export type DefaultValue =
  | { readonly kind: 'value'; readonly value: string | number | boolean }
  /** A new random GUID (keys). */
  | { readonly kind: 'guid' }
  /** The current UTC time (Edm.DateTimeOffset). */
  | { readonly kind: 'now' }
  /** Today's UTC date (Edm.Date). */
  | { readonly kind: 'today' }
  /** The calling user's id (or `SYSTEM` when there is none). */
  | { readonly kind: 'currentUser' }
  /** The next number of a number series of the row's company, e.g. `ECN000001`. */
  | { readonly kind: 'numberSeries'; readonly series: string }
  /** 10000 more than the highest value among the rows sharing `groupBy` (BC line numbers). */
  | { readonly kind: 'nextLineNo'; readonly groupBy: string };

/**
 * A value computed on read (SQL expressions built by the planner); `exists` reads a related-row count
 * that triggers keep in a hidden column (counterColumn).
 * Paths are navigation names followed by a property name, e.g. ['changeReason', 'description'].
 */
export type ComputedValue =
  /** The value of a property reached through single-valued navigations; null when any hop is missing. */
  | { readonly kind: 'lookup'; readonly path: readonly string[] }
  /** true when the collection-valued navigation has at least one row. */
  | { readonly kind: 'exists'; readonly navigation: string }
  /** The first of several lookup paths whose value is neither null nor ''; otherwise `fallback`. */
  | { readonly kind: 'firstNonEmpty'; readonly paths: readonly (readonly string[])[]; readonly fallback: string | null };

/** How a property is kept. */
export type PropertyStorage =
  /** A column of the entity's table. */
  | { readonly kind: 'column' }
  /** Computed on read (see ComputedValue); not a column. */
  | { readonly kind: 'computed'; readonly computed: ComputedValue }
  /** An Edm.Stream media property kept in a column; read/written through its own URL segment. */
  | { readonly kind: 'media'; readonly contentType: string; readonly maxBytes: number };

/** A structural property (CSDL §6). */
export interface Property {
  readonly name: string;
  readonly type: PropertyType;
  readonly nullable: boolean;
  readonly maxLength?: number;
  readonly precision?: number;
  readonly scale?: number;
  readonly writable: Writability;
  /** Required on POST (no default, not nullable, writable). */
  readonly required: boolean;
  readonly default?: DefaultValue;
  /** Set by the framework on every insert and update (e.g. lastModifiedDateTime). */
  readonly autoModified: boolean;
  /** Unique within a company (or globally for global types). */
  readonly unique: boolean;
  readonly storage: PropertyStorage;
  readonly description?: string;
}

/** One join condition of a navigation: `source.<sourceProperty> = target.<targetProperty>`. */
export interface NavigationJoin {
  readonly sourceProperty: string;
  readonly targetProperty: string;
}

/** A navigation property (CSDL §7). */
export interface NavigationProperty {
  readonly name: string;
  readonly source: EntityType;
  readonly target: EntityType;
  readonly collection: boolean;
  /** The target entities are contained in the source (CSDL §7.1.5): created through it, deleted with it. */
  readonly containsTarget: boolean;
  /** Name of the navigation property on the target that points back, if any. */
  readonly partner?: string;
  /** How source rows join target rows (same company is implied when both types are company-scoped). */
  readonly joins: readonly NavigationJoin[];
  /**
   * true when the join is source-FK → target-key (a single-valued reference the source holds):
   * these are emitted as CSDL ReferentialConstraints and checked on write.
   */
  readonly referential: boolean;
  /** On POST/PATCH, a non-null, non-empty source value must match a target row of the same company (400 otherwise). */
  readonly checkOnWrite: boolean;
  /** For referential navigations: what deleting the target does to source rows (`restrict` → 409). */
  readonly onTargetDelete: 'cascade' | 'restrict' | 'setNull';
  /** false for helper navigations that only feed computed properties (not in $metadata, not addressable). */
  readonly exposed: boolean;
  readonly description?: string;
}

/** A bound action (CSDL §12), bound to a single entity of the declaring type. */
export interface BoundAction {
  readonly name: string;
  /** `Microsoft.NAV.createEngChangeOrder` */
  readonly qualifiedName: string;
  /** Entity type returned (a single entity), or undefined for an action without result (204). */
  readonly returnType?: EntityType;
  readonly description?: string;
}

/** Which operations the API allows on an entity set; a forbidden one answers 405. */
export interface Capabilities {
  readonly insertable: boolean;
  readonly updatable: boolean;
  readonly deletable: boolean;
  /** A DELETE without If-Match is a 428 (otherwise If-Match is checked only when sent). */
  readonly deleteRequiresIfMatch: boolean;
}

/** The permission sets guarding an entity (conventions §7); undefined = readable by any company user, writable by SUPER. */
export interface PermissionSets {
  readonly read: string;
  readonly write: string;
}

/**
 * Rows of a global type that each belong to a company (named by `companyProperty`): a caller reads,
 * creates and deletes only rows of companies where it holds `permission` (or SUPER).
 */
export interface RowScope {
  readonly companyProperty: Property;
  readonly permission: string;
}

/**
 * Rows of a global type that each have an owner and a company: a caller sees and changes its own rows,
 * and with SUPER in a company every row of that company.
 */
export interface OwnerScope {
  readonly userProperty: Property;
  readonly companyProperty: Property;
}

/**
 * A random secret per row, kept in the hidden column `HIDDEN_COLUMNS.secret`: `prefix` + base64 of
 * `bytes` random bytes, returned once in the response to the POST that creates the row.
 */
export interface RowSecret {
  readonly prefix: string;
  readonly bytes: number;
}

/** An entity type together with its entity set (the model has exactly one set per type). */
export interface EntityType {
  readonly name: string;
  /** `Microsoft.NAV.engChangeNotice` */
  readonly qualifiedName: string;
  readonly entitySet: string;
  /** SQL table name. */
  readonly table: string;
  /** `company`: every row belongs to one company (hidden column); `global`: rows are shared. */
  readonly scope: 'company' | 'global';
  /** The single key property (CSDL §8.2); the framework supports single-property keys only. */
  readonly key: Property;
  /** Alternate keys (Core.AlternateKeys): property lists that also identify one entity in a key predicate. */
  readonly alternateKeys: readonly (readonly Property[])[];
  /** All structural properties, in declaration order (key first). */
  readonly properties: readonly Property[];
  readonly propertyByName: ReadonlyMap<string, Property>;
  readonly navigations: readonly NavigationProperty[];
  readonly navigationByName: ReadonlyMap<string, NavigationProperty>;
  readonly actions: readonly BoundAction[];
  readonly actionByQualifiedName: ReadonlyMap<string, BoundAction>;
  readonly capabilities: Capabilities;
  readonly permissions?: PermissionSets;
  /** Per-row company scoping of a global type (see RowScope). */
  readonly rowScope?: RowScope;
  /** Per-owner scoping of a global type (see OwnerScope). */
  readonly ownerScope?: OwnerScope;
  /** Clients may subscribe to changes of the set with webhooks (model `subscribable`; company-scoped types only). */
  readonly subscribable: boolean;
  /** A per-row secret (see RowSecret). */
  readonly secret?: RowSecret;
  /** Default sort when a request gives no $orderby (the key is always appended). */
  readonly defaultOrderBy: readonly string[];
  /** More indexes the model asks for (model `indexes`), e.g. for grouping: stored properties, in order. */
  readonly indexes: readonly (readonly Property[])[];
  readonly description?: string;
  /** Metadata file the type came from (for error messages). */
  readonly source: string;
}

/** Service-wide settings from `metadata/service.json`, its limits flattened in (see service-limits.ts). */
export interface ServiceSettings extends ServiceLimits {
  /** CSDL schema namespace and bound-action prefix, e.g. `Microsoft.NAV`. */
  readonly namespace: string;
  /** CSDL entity container name, e.g. `NAV`. */
  readonly containerName: string;
  /** Path of the service root, e.g. `/api/v2.0`. */
  readonly serviceRoot: string;
  /** Entity-change subscriptions (service.json `webhooks`). */
  readonly webhooks: ChangeWebhookSettings;
}

/** How entity-change subscriptions collect changes and how long they live (service.json `webhooks`). */
export interface ChangeWebhookSettings {
  /** A subscription collects changes for this long from its first change, then sends them, ms. */
  readonly changeWindowMs: number;
  /** More entities of one subscription changed in one window than this: one `collection` entry instead. */
  readonly collectionThreshold: number;
  /** expirationDateTime is this long after a create or renewal, ms. */
  readonly subscriptionLifetimeMs: number;
  /** A notification is retried until this long after its first attempt, ms; then its subscriptions are deleted. */
  readonly retryForMs: number;
}

/** The defaults of the `webhooks` settings a service.json leaves out. */
export const DEFAULT_CHANGE_WEBHOOKS: ChangeWebhookSettings = Object.freeze({
  changeWindowMs: 30_000,
  collectionThreshold: 1000,
  subscriptionLifetimeMs: 3 * 24 * 3600_000,
  retryForMs: 36 * 3600_000,
});

/** A number series definition (conventions §5): `prefix` + zero-padded counter of `width` digits. */
export interface NumberSeriesDefinition {
  readonly code: string;
  readonly prefix: string;
  readonly width: number;
}

/** A permission set declared in service.json (conventions §7): what entity files may name and operators may grant. */
export interface PermissionSetDeclaration {
  readonly name: string;
  readonly description: string;
}

/** Payload field types of business events (Business Central's names, as the event definitions publish them). */
export type EventPayloadType = 'Guid' | 'Text' | 'Code' | 'Integer' | 'BigInteger' | 'Decimal' | 'Boolean' | 'Date' | 'DateTime';

/** One payload field of a business event. */
export interface EventPayloadField {
  readonly name: string;
  readonly type: EventPayloadType;
}

/** An external business event (service-interface.md, Events), declared in `metadata/events/`. */
export interface BusinessEvent {
  readonly name: string;
  readonly version: string;
  readonly displayName: string;
  readonly description: string;
  /** As declared, without the publisher prefix. */
  readonly category: string;
  /** The company-scoped type the event is about. */
  readonly entityType: EntityType;
  /** The payload field holding that entity's key (notifications add the entity's URL beside it). */
  readonly keyField: string;
  readonly payload: readonly EventPayloadField[];
  readonly source: string;
}

/** The identity business events are published under (`metadata/service.json` app). */
export interface AppIdentity {
  readonly id: string;
  readonly name: string;
  readonly publisher: string;
  readonly version: string;
}

/** Where business events are published and subscribed to; present when service.json names both types. */
export interface EventEntityTypes {
  /** Read-only definitions, one row per declared event (filled at start-up). */
  readonly definition: EntityType;
  /** Webhook subscriptions. */
  readonly subscription: EntityType;
}

/** The lookup key of a business event: `<name>@<version>`. */
export function eventKey(name: string, version: string): string {
  return `${name}@${version}`;
}

/** The whole model. */
export interface EdmModel {
  readonly service: ServiceSettings;
  readonly entityTypes: readonly EntityType[];
  readonly entityTypeByName: ReadonlyMap<string, EntityType>;
  readonly entityTypeBySet: ReadonlyMap<string, EntityType>;
  readonly enumTypes: readonly EnumType[];
  readonly enumTypeByName: ReadonlyMap<string, EnumType>;
  /** The company entity type (the scope root: `companies(...)` prefixes company-scoped URLs). */
  readonly company: EntityType;
  readonly numberSeries: readonly NumberSeriesDefinition[];
  /** The declared permission sets, in file order (SUPER, built in, is not among them). */
  readonly permissionSets: readonly PermissionSetDeclaration[];
  /** The entity type that stores number-series counters (code, prefix, width, lastNumber), if configured. */
  readonly numberSeriesType?: EntityType;
  /** The identity business events are published under; required when events are declared. */
  readonly app?: AppIdentity;
  /** Declared business events, in file order. */
  readonly events: readonly BusinessEvent[];
  /** Events by `eventKey(name, version)`. */
  readonly eventByKey: ReadonlyMap<string, BusinessEvent>;
  readonly eventTypes?: EventEntityTypes;
  /** The type of entity-change subscriptions (service.json `changeSubscriptionEntityType`), if any. */
  readonly changeSubscriptionType?: EntityType;
  /** The read-only type listing the subscribable sets (service.json `webhookResourceEntityType`), if any. */
  readonly webhookResourceType?: EntityType;
}

/** Columns the framework adds to tables; never part of the model, never accepted from a payload. */
export const HIDDEN_COLUMNS = {
  /** Owning company of a company-scoped row. */
  company: '_companyId',
  /** Row version, changed on every write; the ETag is derived from it. */
  version: '_version',
  /** The per-row secret of a type that declares one (never part of a read). */
  secret: '_secret',
  /** The ETag text of the row, stored by the writer so reads need not compute it (db/sqlite/sqlite-stored-etags.ts)... */
  etag: '_etag',
  /** ...and the version it belongs to: reads trust `_etag` only while this equals `_version`. */
  etagVersion: '_etagOf',
  /**
   * The row's entity JSON (odata.metadata=minimal, every property), kept by triggers where the engine
   * keeps it (EngineCapabilities.storedEntityJson: both engines), so reads need not build it.
   */
  entityJson: '_entityJson',
} as const;

/** Alias of the version column in result rows (the ETag is formatted from it). */
export const VERSION_ALIAS = HIDDEN_COLUMNS.version;

/**
 * The hidden column counting the related rows of a collection-valued navigation, kept by triggers for
 * `exists` computed properties (db/row-counters.ts), so a read tests a column instead of a subquery.
 */
export function counterColumn(navigation: string): string {
  return `_count_${navigation}`;
}
