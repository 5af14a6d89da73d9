/**
 * Builds the runtime model (model.ts) from checked metadata files, in two passes: first the enum
 * and entity types with their properties, then navigations and actions, which refer to other
 * entity types directly (cycles included). The result is frozen.
 */
import { encodeODataName } from './encode-name.js';
import { DEFAULT_LIMITS } from './service-limits.js';
import type { EntityFile, EnumFile, EventFile, MetadataDocument, MetadataFiles, NavigationFile, PropertyFile } from './metadata-format.js';
import { DEFAULT_CHANGE_WEBHOOKS, eventKey } from './model.js';
import { deepFreeze } from '../util/deep-freeze.js';
import type {
  BoundAction, BusinessEvent, DefaultValue, EdmModel, EntityType, EnumMember, EnumType, NavigationProperty, PrimitiveTypeName, Property, PropertyStorage, PropertyType,
} from './model.js';

const PRIMITIVE_TYPES: ReadonlySet<string> = new Set<PrimitiveTypeName>([
  'Edm.Guid', 'Edm.String', 'Edm.Boolean', 'Edm.Int32', 'Edm.Int64', 'Edm.Decimal', 'Edm.Double', 'Edm.Date', 'Edm.DateTimeOffset', 'Edm.TimeOfDay', 'Edm.Stream',
]);

/** true for the primitive type names model.ts supports. */
function isPrimitiveTypeName(name: string): name is PrimitiveTypeName {
  return PRIMITIVE_TYPES.has(name);
}

/** A value that check-model.ts guarantees; its absence is a bug of the checks, not of the model. */
function checked<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`Internal error: ${what} was not caught by the model checks.`);
  return value;
}

/** `{ [key]: value }` when value is defined, else `{}` (keeps optional members absent rather than undefined). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** An EnumType; member values are positions, names are also kept encoded for the wire. */
function buildEnum(document: MetadataDocument<EnumFile>, namespace: string): EnumType {
  const members: EnumMember[] = document.doc.members.map((name, value) => ({ name, encoded: encodeODataName(name), value }));
  return {
    name: document.doc.name,
    qualifiedName: `${namespace}.${document.doc.name}`,
    members,
    memberByEncoded: new Map(members.map((member) => [member.encoded, member])),
    ...optional('description', document.doc.description),
    source: document.source,
  };
}

/** The model's default: an enum default is stored by its encoded member name (the wire and column value). */
function buildDefault(value: DefaultValue | undefined, type: PropertyType): DefaultValue | undefined {
  if (value === undefined) return undefined;
  if (value.kind === 'value' && type.kind === 'enum' && typeof value.value === 'string') return { kind: 'value', value: encodeODataName(value.value) };
  return structuredClone(value);
}

/** A Property; computed and autoModified properties are read-only whatever the file says. */
function buildProperty(file: PropertyFile, enumByName: ReadonlyMap<string, EnumType>): Property {
  const type: PropertyType = isPrimitiveTypeName(file.type)
    ? { kind: 'primitive', name: file.type }
    : { kind: 'enum', enumType: checked(enumByName.get(file.type), `enum type ${file.type}`) };
  const storage: PropertyStorage = file.computed !== undefined
    ? { kind: 'computed', computed: structuredClone(file.computed) }
    : file.media !== undefined
      ? { kind: 'media', contentType: file.media.contentType, maxBytes: file.media.maxBytes }
      : { kind: 'column' };
  const autoModified = file.autoModified ?? false;
  const writable = storage.kind === 'computed' || autoModified ? 'never' : file.writable ?? 'always';
  const nullable = file.nullable ?? true;
  const fallback = buildDefault(file.default, type);
  return {
    name: file.name,
    type,
    nullable,
    ...optional('maxLength', file.maxLength),
    ...optional('precision', file.precision),
    ...optional('scale', file.scale),
    writable,
    required: !nullable && writable !== 'never' && fallback === undefined && storage.kind === 'column',
    ...optional('default', fallback),
    autoModified,
    unique: file.unique ?? false,
    storage,
    ...optional('description', file.description),
  };
}

/** The parts of an entity type that pass 2 fills in (the arrays and maps are shared with the EntityType). */
interface PendingType {
  readonly document: MetadataDocument<EntityFile>;
  readonly type: EntityType;
  readonly navigations: NavigationProperty[];
  readonly navigationByName: Map<string, NavigationProperty>;
  readonly actions: BoundAction[];
  readonly actionByQualifiedName: Map<string, BoundAction>;
}

/** Pass 1: an EntityType with its properties, and empty navigation and action lists. */
function buildEntityShell(document: MetadataDocument<EntityFile>, namespace: string, enumByName: ReadonlyMap<string, EnumType>): PendingType {
  const { doc } = document;
  const properties = doc.properties.map((property) => buildProperty(property, enumByName));
  const propertyByName = new Map(properties.map((property) => [property.name, property]));
  const pending = { navigations: [], navigationByName: new Map(), actions: [], actionByQualifiedName: new Map() };
  const type: EntityType = {
    name: doc.name,
    qualifiedName: `${namespace}.${doc.name}`,
    entitySet: doc.entitySet,
    table: doc.entitySet,
    scope: doc.scope,
    key: checked(propertyByName.get(doc.key), `key ${doc.name}.${doc.key}`),
    properties,
    propertyByName,
    ...pending,
    capabilities: {
      insertable: doc.capabilities?.insertable ?? true,
      updatable: doc.capabilities?.updatable ?? true,
      deletable: doc.capabilities?.deletable ?? true,
      deleteRequiresIfMatch: doc.capabilities?.deleteRequiresIfMatch ?? false,
    },
    alternateKeys: (doc.alternateKeys ?? []).map((names) => names.map((name) => checked(propertyByName.get(name), `alternate key ${doc.name}.${name}`))),
    ...optional('permissions', doc.permissions ? { read: doc.permissions.read, write: doc.permissions.write } : undefined),
    ...optional('rowScope', doc.rowScope ? { companyProperty: checked(propertyByName.get(doc.rowScope.companyProperty), `row scope ${doc.name}`), permission: doc.rowScope.permission } : undefined),
    ...optional(
      'ownerScope',
      doc.ownerScope ? { userProperty: checked(propertyByName.get(doc.ownerScope.userProperty), `owner scope ${doc.name}`), companyProperty: checked(propertyByName.get(doc.ownerScope.companyProperty), `owner scope ${doc.name}`) } : undefined,
    ),
    subscribable: doc.subscribable ?? false,
    ...optional('secret', doc.secret ? { prefix: doc.secret.prefix, bytes: doc.secret.bytes } : undefined),
    defaultOrderBy: [...(doc.defaultOrderBy ?? [])],
    indexes: (doc.indexes ?? []).map((names) => names.map((name) => checked(propertyByName.get(name), `index ${doc.name}.${name}`))),
    ...optional('description', doc.description),
    source: document.source,
  };
  return { document, type, ...pending };
}

/** Pass 2: a NavigationProperty with direct source and target references. */
function buildNavigation(file: NavigationFile, source: EntityType, typeByName: ReadonlyMap<string, EntityType>, targetFile: EntityFile): NavigationProperty {
  const target = checked(typeByName.get(file.target), `navigation target ${file.target}`);
  const join = file.joins[0];
  const referential = !file.collection && file.joins.length === 1 && join !== undefined && join.target === target.key.name;
  // A row contained in its parent goes with it: its way back to the parent cascades by nature.
  const partnerContains = file.partner !== undefined && targetFile.navigationProperties?.find((n) => n.name === file.partner)?.containsTarget === true;
  return {
    name: file.name,
    source,
    target,
    collection: file.collection,
    containsTarget: file.containsTarget ?? false,
    ...optional('partner', file.partner),
    joins: file.joins.map((entry) => ({ sourceProperty: entry.source, targetProperty: entry.target })),
    referential,
    checkOnWrite: file.checkOnWrite ?? referential,
    onTargetDelete: file.onTargetDelete ?? (partnerContains ? 'cascade' : 'restrict'),
    exposed: file.exposed ?? true,
    ...optional('description', file.description),
  };
}

/** A BusinessEvent of a checked event file. */
function buildEvent(document: MetadataDocument<EventFile>, typeByName: ReadonlyMap<string, EntityType>): BusinessEvent {
  const { doc } = document;
  return {
    name: doc.name,
    version: doc.version,
    displayName: doc.displayName,
    description: doc.description,
    category: doc.category,
    entityType: checked(typeByName.get(doc.entityType), `event entity type ${doc.entityType}`),
    keyField: doc.keyField,
    payload: doc.payload.map((field) => ({ name: field.name, type: field.type })),
    source: document.source,
  };
}

/** Builds the frozen runtime model of checked metadata files. */
export function buildModel(files: MetadataFiles): EdmModel {
  const service = files.service.doc;
  const enumTypes = files.enums.map((document) => buildEnum(document, service.namespace));
  const enumTypeByName = new Map(enumTypes.map((type) => [type.name, type]));
  const pending = files.entities.map((document) => buildEntityShell(document, service.namespace, enumTypeByName));
  const entityTypeByName = new Map(pending.map(({ type }) => [type.name, type]));
  for (const { document, type, navigations, navigationByName, actions, actionByQualifiedName } of pending) {
    for (const file of document.doc.navigationProperties ?? []) {
      const targetFile = checked(files.entities.find((entity) => entity.doc.name === file.target), `navigation target ${file.target}`).doc;
      const navigation = buildNavigation(file, type, entityTypeByName, targetFile);
      navigations.push(navigation);
      navigationByName.set(navigation.name, navigation);
    }
    for (const file of document.doc.actions ?? []) {
      const returnType = file.returnType === undefined ? undefined : checked(entityTypeByName.get(file.returnType), `return type ${file.returnType}`);
      const action: BoundAction = { name: file.name, qualifiedName: `${service.namespace}.${file.name}`, ...optional('returnType', returnType), ...optional('description', file.description) };
      actions.push(action);
      actionByQualifiedName.set(action.qualifiedName, action);
    }
  }
  const entityTypes = pending.map(({ type }) => type);
  const events = files.events.map((document) => buildEvent(document, entityTypeByName));
  const typeNamed = (name: string | undefined): EntityType | undefined => (name === undefined ? undefined : checked(entityTypeByName.get(name), `event entity type ${name}`));
  const definition = typeNamed(service.eventDefinitionEntityType);
  const subscription = typeNamed(service.eventSubscriptionEntityType);
  const model: EdmModel = {
    service: {
      namespace: service.namespace,
      containerName: service.containerName,
      serviceRoot: service.serviceRoot,
      ...DEFAULT_LIMITS,
      ...service.limits,
      webhooks: { ...DEFAULT_CHANGE_WEBHOOKS, ...service.webhooks },
    },
    entityTypes,
    entityTypeByName,
    entityTypeBySet: new Map(entityTypes.map((type) => [type.entitySet, type])),
    enumTypes,
    enumTypeByName,
    company: checked(entityTypeByName.get(service.companyEntityType), `company type ${service.companyEntityType}`),
    numberSeries: service.numberSeries.map((series) => ({ code: series.code, prefix: series.prefix, width: series.width })),
    permissionSets: service.permissionSets.map((set) => ({ name: set.name, description: set.description })),
    ...(service.numberSeriesEntityType === undefined ? {} : { numberSeriesType: checked(entityTypeByName.get(service.numberSeriesEntityType), `number series type ${service.numberSeriesEntityType}`) }),
    ...optional('app', service.app === undefined ? undefined : { ...service.app }),
    events,
    eventByKey: new Map(events.map((event) => [eventKey(event.name, event.version), event])),
    ...optional('eventTypes', definition !== undefined && subscription !== undefined ? { definition, subscription } : undefined),
    ...optional('changeSubscriptionType', typeNamed(service.changeSubscriptionEntityType)),
    ...optional('webhookResourceType', typeNamed(service.webhookResourceEntityType)),
  };
  deepFreeze(model);
  return model;
}
