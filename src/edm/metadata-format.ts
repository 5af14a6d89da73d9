/**
 * The shapes of the metadata files as written on disk (validated by `schemas/*.schema.json`).
 * They differ from the runtime model (model.ts) in that names are unresolved strings and most
 * members are optional with defaults; build-model.ts turns them into the model.
 */
import type { ServiceLimits } from './service-limits.js';
import type { ChangeWebhookSettings, ComputedValue, DefaultValue, EventPayloadType, NumberSeriesDefinition, PermissionSetDeclaration, PermissionSets, RowSecret, Writability } from './model.js';

/** `metadata/service.json`. */
export interface ServiceFile {
  readonly namespace: string;
  readonly containerName: string;
  readonly serviceRoot: string;
  readonly companyEntityType: string;
  readonly numberSeriesEntityType?: string;
  /** Required: pageSize, maxPageSize, maxBodyBytes, maxExpandDepth, maxTop; the rest default (service-limits.ts). */
  readonly limits: Partial<ServiceLimits> & Pick<ServiceLimits, 'pageSize' | 'maxPageSize' | 'maxBodyBytes' | 'maxExpandDepth' | 'maxTop'>;
  readonly numberSeries: readonly NumberSeriesDefinition[];
  /** The permission sets entity files may name and operators may grant (SUPER is built in). */
  readonly permissionSets: readonly PermissionSetDeclaration[];
  /** The identity business events are published under. */
  readonly app?: { readonly id: string; readonly name: string; readonly publisher: string; readonly version: string };
  readonly eventDefinitionEntityType?: string;
  readonly eventSubscriptionEntityType?: string;
  /** The global type of entity-change subscriptions (its set is the subscriptions endpoint). */
  readonly changeSubscriptionEntityType?: string;
  /** The read-only type whose rows are the subscribable sets (its set is webhookSupportedResources). */
  readonly webhookResourceEntityType?: string;
  readonly webhooks?: Partial<ChangeWebhookSettings>;
}

/** `metadata/events/<name>.json`: a business event and its payload fields. */
export interface EventFile {
  readonly name: string;
  readonly version: string;
  readonly displayName: string;
  readonly description: string;
  readonly category: string;
  readonly entityType: string;
  readonly keyField: string;
  readonly payload: readonly { readonly name: string; readonly type: EventPayloadType }[];
}

/** `metadata/enums/<name>.json`: member values are the positions of the business names. */
export interface EnumFile {
  readonly name: string;
  readonly description?: string;
  readonly members: readonly string[];
}

/** One entry of an entity file's `properties`; for an enum default, `value` is the business member name. */
export interface PropertyFile {
  readonly name: string;
  readonly type: string;
  readonly nullable?: boolean;
  readonly maxLength?: number;
  readonly precision?: number;
  readonly scale?: number;
  readonly writable?: Writability;
  readonly default?: DefaultValue;
  readonly autoModified?: boolean;
  readonly unique?: boolean;
  readonly computed?: ComputedValue;
  readonly media?: { readonly contentType: string; readonly maxBytes: number };
  readonly description?: string;
}

/** One join condition of a navigation: property names on the source and target types. */
export interface JoinFile {
  readonly source: string;
  readonly target: string;
}

/** One entry of an entity file's `navigationProperties`. */
export interface NavigationFile {
  readonly name: string;
  readonly target: string;
  readonly collection: boolean;
  readonly containsTarget?: boolean;
  readonly partner?: string;
  readonly joins: readonly JoinFile[];
  readonly checkOnWrite?: boolean;
  readonly onTargetDelete?: 'cascade' | 'restrict' | 'setNull';
  readonly exposed?: boolean;
  readonly description?: string;
}

/** One entry of an entity file's `actions` (bound to a single entity of the type). */
export interface ActionFile {
  readonly name: string;
  readonly returnType?: string;
  readonly description?: string;
}

/** `metadata/entities/<name>.json`. */
export interface EntityFile {
  readonly name: string;
  readonly entitySet: string;
  readonly description?: string;
  readonly scope: 'company' | 'global';
  readonly permissions?: PermissionSets;
  readonly capabilities?: { readonly insertable?: boolean; readonly updatable?: boolean; readonly deletable?: boolean; readonly deleteRequiresIfMatch?: boolean };
  readonly key: string;
  readonly defaultOrderBy?: readonly string[];
  readonly indexes?: readonly (readonly string[])[];
  readonly properties: readonly PropertyFile[];
  readonly navigationProperties?: readonly NavigationFile[];
  readonly actions?: readonly ActionFile[];
  readonly alternateKeys?: readonly (readonly string[])[];
  readonly rowScope?: { readonly companyProperty: string; readonly permission: string };
  readonly ownerScope?: { readonly userProperty: string; readonly companyProperty: string };
  readonly subscribable?: boolean;
  readonly secret?: RowSecret;
}

/** A parsed, schema-valid metadata document and where it came from. */
export interface MetadataDocument<T> {
  /** Absolute path (for problems). */
  readonly file: string;
  /** Path relative to the metadata folder's parent, e.g. `metadata/entities/contact.json` (model `source`). */
  readonly source: string;
  readonly doc: T;
}

/** All metadata documents of a model, enums and entities sorted by file name. */
export interface MetadataFiles {
  readonly service: MetadataDocument<ServiceFile>;
  readonly enums: readonly MetadataDocument<EnumFile>[];
  readonly entities: readonly MetadataDocument<EntityFile>[];
  /** Business events, sorted by file name. */
  readonly events: readonly MetadataDocument<EventFile>[];
}
