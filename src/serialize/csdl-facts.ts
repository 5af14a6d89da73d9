/**
 * What $metadata says about the model, decided once for both representations (CSDL XML in
 * csdl-xml.ts, CSDL JSON in csdl-json.ts): type names, the Core vocabulary annotations, the
 * navigation properties as published (the company type's generated ones included), set bindings.
 */
import type { BoundAction, EdmModel, EntityType, NavigationProperty, Property } from '../edm/model.js';

/** The OASIS Core vocabulary, referenced under the alias `Core` (CSDL §3.3). */
export const CORE_VOCABULARY = {
  namespace: 'Org.OData.Core.V1',
  alias: 'Core',
  xmlUri: 'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.xml',
  jsonUri: 'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.json',
} as const;

/** The OASIS Aggregation vocabulary, referenced under the alias `Aggregation` (Data Aggregation §2). */
export const AGGREGATION_VOCABULARY = {
  namespace: 'Org.OData.Aggregation.V1',
  alias: 'Aggregation',
  xmlUri: 'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Aggregation.V1.xml',
  jsonUri: 'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Aggregation.V1.json',
} as const;

/** The OASIS Capabilities vocabulary, referenced under the alias `Capabilities`. */
export const CAPABILITIES_VOCABULARY = {
  namespace: 'Org.OData.Capabilities.V1',
  alias: 'Capabilities',
  xmlUri: 'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Capabilities.V1.xml',
  jsonUri: 'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Capabilities.V1.json',
} as const;

/**
 * `Capabilities.BatchSupport` of the entity container (OData Protocol §11.7 asks services to advertise
 * the optional batch features): what `$batch` supports (src/batch/): continue-on-error, `$<id>` in
 * bodies and across change sets, `If-Match: $<id>`, both formats; no `if` conditions.
 */
export const BATCH_SUPPORT = {
  term: 'BatchSupport',
  booleans: {
    Supported: true,
    ContinueOnErrorSupported: true,
    ReferencesInRequestBodiesSupported: true,
    ReferencesAcrossChangeSetsSupported: true,
    EtagReferencesSupported: true,
    RequestDependencyConditionsSupported: false,
  },
  supportedFormats: ['multipart/mixed', 'application/json'],
} as const;

/**
 * `Aggregation.ApplySupported` of every entity set (Data Aggregation §7, ApplySupportedType): the
 * transformations `$apply` supports there (src/query/bind-apply.ts), no rollup hierarchies.
 */
export const APPLY_SUPPORTED = {
  term: 'ApplySupported',
  transformations: ['aggregate', 'groupby', 'filter', 'orderby', 'top', 'skip', 'identity', 'concat'],
  rollup: 'None',
} as const;

/** One Core annotation (term without the alias), independent of the representation. */
export type CoreAnnotation =
  | { readonly term: 'Computed' | 'Immutable'; readonly kind: 'bool'; readonly value: true }
  | { readonly term: 'Permissions'; readonly kind: 'enum'; readonly enumType: 'Permission'; readonly member: 'Read' }
  | { readonly term: 'AcceptableMediaTypes'; readonly kind: 'strings'; readonly value: readonly string[] }
  | { readonly term: 'Description'; readonly kind: 'string'; readonly value: string }
  /** Core.AlternateKeys: a collection of Core.AlternateKey records, each a Key collection of Core.PropertyRef {Name}. */
  | { readonly term: 'AlternateKeys'; readonly kind: 'alternateKeys'; readonly keys: readonly (readonly string[])[] };

/** A Core.Description annotation when there is a description. */
export function descriptionAnnotations(description: string | undefined): CoreAnnotation[] {
  return description === undefined ? [] : [{ term: 'Description', kind: 'string', value: description }];
}

/** The Core annotations of an entity type: its alternate keys (OData Core vocabulary, AlternateKeys) and description. */
export function entityTypeAnnotations(type: EntityType): CoreAnnotation[] {
  const alternate: CoreAnnotation[] = type.alternateKeys.length === 0 ? [] : [{ term: 'AlternateKeys', kind: 'alternateKeys', keys: type.alternateKeys.map((key) => key.map((p) => p.name)) }];
  return [...alternate, ...descriptionAnnotations(type.description)];
}

/**
 * The Core annotations of a property. The key gets no Computed/Immutable: clients may send an `id`
 * on POST (so it is not Computed), and key values are immutable by definition (Core.Immutable is
 * defined for non-key properties only), so either annotation would mislead or repeat the standard.
 */
export function propertyAnnotations(type: EntityType, property: Property): CoreAnnotation[] {
  const annotations: CoreAnnotation[] = [];
  const isKey = property === type.key;
  // Computed and autoModified properties are loaded as writable 'never'; the checks are explicit anyway.
  const readOnly = property.writable === 'never' || property.storage.kind === 'computed' || property.autoModified;
  if (!isKey && readOnly) {
    annotations.push({ term: 'Computed', kind: 'bool', value: true });
    annotations.push({ term: 'Permissions', kind: 'enum', enumType: 'Permission', member: 'Read' });
  }
  if (!isKey && !readOnly && property.writable === 'create') annotations.push({ term: 'Immutable', kind: 'bool', value: true });
  if (property.storage.kind === 'media') annotations.push({ term: 'AcceptableMediaTypes', kind: 'strings', value: [property.storage.contentType] });
  return [...annotations, ...descriptionAnnotations(property.description)];
}

/** The qualified type name of a property: an Edm primitive or `<namespace>.<enum>`. */
export function propertyTypeName(property: Property): string {
  return property.type.kind === 'primitive' ? property.type.name : property.type.enumType.qualifiedName;
}

/** A navigation property as published in $metadata. */
export interface CsdlNavigation {
  readonly name: string;
  /** Qualified name of the target entity type (without `Collection(...)`). */
  readonly target: string;
  readonly collection: boolean;
  /** false only when the target provably always exists (see navigationNullable). */
  readonly nullable: boolean;
  readonly partner?: string;
  readonly containsTarget: boolean;
  /** Source property → target property, for referential navigations only (CSDL §8.5). */
  readonly constraint?: { readonly property: string; readonly referencedProperty: string };
  readonly description?: string;
}

/**
 * A single-valued navigation is published non-nullable only when the target always exists: a
 * referential join from non-nullable columns, checked on write (so it cannot dangle).
 */
function navigationNullable(navigation: NavigationProperty): boolean {
  if (navigation.collection || !navigation.referential || !navigation.checkOnWrite) return true;
  return navigation.joins.some((join) => navigation.source.propertyByName.get(join.sourceProperty)?.nullable !== false);
}

/** One published navigation of a model navigation (referential constraints only where referential). */
function toCsdlNavigation(navigation: NavigationProperty): CsdlNavigation {
  const join = navigation.joins[0];
  return {
    name: navigation.name,
    target: navigation.target.qualifiedName,
    collection: navigation.collection,
    nullable: navigationNullable(navigation),
    ...(navigation.partner === undefined ? {} : { partner: navigation.partner }),
    containsTarget: navigation.containsTarget,
    // Never on collection-valued navigations: some Microsoft client libraries reject them there.
    ...(navigation.referential && join ? { constraint: { property: join.sourceProperty, referencedProperty: join.targetProperty } } : {}),
    ...(navigation.description === undefined ? {} : { description: navigation.description }),
  };
}

/**
 * The published navigations of `type`: its exposed ones, and on the company type one containment
 * navigation per company-scoped set, so that `companies(id)/<set>` is a valid OData path (as in BC).
 */
export function csdlNavigations(model: EdmModel, type: EntityType): CsdlNavigation[] {
  const own = type.navigations.filter((navigation) => navigation.exposed).map(toCsdlNavigation);
  if (type !== model.company) return own;
  const scoped = model.entityTypes
    .filter((candidate) => candidate.scope === 'company')
    .map((candidate): CsdlNavigation => ({ name: candidate.entitySet, target: candidate.qualifiedName, collection: true, nullable: true, containsTarget: true }));
  return [...own, ...scoped];
}

/** NavigationPropertyBindings of a type's entity set: exposed, non-containment navigations (contained targets have no set binding). */
export function navigationBindings(type: EntityType): { readonly path: string; readonly target: string }[] {
  return type.navigations
    .filter((navigation) => navigation.exposed && !navigation.containsTarget)
    .map((navigation) => ({ path: navigation.name, target: navigation.target.entitySet }));
}

/** A bound action with the type it is bound to. */
export interface CsdlAction {
  readonly action: BoundAction;
  readonly bindingType: EntityType;
}

/** Every bound action, in model order (types, then their actions); overloads keep their order. */
export function csdlActions(model: EdmModel): CsdlAction[] {
  return model.entityTypes.flatMap((type) => type.actions.map((action) => ({ action, bindingType: type })));
}

/** A term the schema declares for its own instance annotations (CSDL §14.1). */
export interface CsdlTerm {
  readonly name: string;
  readonly type: string;
  readonly appliesTo: string;
  readonly description: string;
}

/**
 * The schema's own terms: `secret`, when a type has a per-row secret (its instance annotation on the
 * POST response is then declared rather than an unknown name).
 */
export function csdlTerms(model: EdmModel): CsdlTerm[] {
  if (!model.entityTypes.some((type) => type.secret !== undefined)) return [];
  return [{ name: 'secret', type: 'Edm.String', appliesTo: 'EntityType', description: 'Instance annotation of the response to the POST that creates an entity with a secret (e.g. a webhook signing secret); shown only then, never readable afterwards.' }];
}
