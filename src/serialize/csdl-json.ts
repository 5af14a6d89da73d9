/**
 * `$metadata?$format=json` as CSDL JSON (OData CSDL JSON Representation 4.01, `$Version` 4.0).
 * Same content as csdl-xml.ts, decided in csdl-facts.ts; here only the JSON spelling differs:
 * `$Nullable` defaults to false (so nullable members say `true`), enum annotation values are member
 * names, and actions are arrays of overloads. A pure, deterministic function of the model.
 */
import type { EdmModel, EntityType, EnumType, Property } from '../edm/model.js';
import { assertNever } from '../util/assert-never.js';
import {
  AGGREGATION_VOCABULARY, APPLY_SUPPORTED, BATCH_SUPPORT, CAPABILITIES_VOCABULARY, CORE_VOCABULARY, csdlActions, csdlNavigations, csdlTerms, descriptionAnnotations, entityTypeAnnotations, navigationBindings, propertyAnnotations, propertyTypeName,
  type CoreAnnotation, type CsdlNavigation,
} from './csdl-facts.js';

/** A JSON value of the CSDL document. */
type Json = string | number | boolean | null | readonly Json[] | { readonly [member: string]: Json };
/** A JSON object of the CSDL document. */
type JsonObject = { readonly [member: string]: Json };

/** `@Core.<Term>` members for the annotations (CSDL JSON §14.3). */
function annotations(entries: readonly CoreAnnotation[]): JsonObject {
  const out: Record<string, Json> = {};
  for (const entry of entries) {
    const member = `@${CORE_VOCABULARY.alias}.${entry.term}`;
    switch (entry.kind) {
      case 'bool':
      case 'string':
      case 'strings':
        out[member] = entry.value;
        break;
      case 'enum':
        // An enumeration value is written as the member name (CSDL JSON §14.4.5).
        out[member] = entry.member;
        break;
      case 'alternateKeys':
        // Records of the term's declared type need no @type; a path value is {"$PropertyPath": ...} (CSDL JSON §14.4.1.13).
        out[member] = entry.keys.map((key) => ({ Key: key.map((name) => ({ Name: { $PropertyPath: name } })) }));
        break;
      default:
        assertNever(entry, 'annotation kind');
    }
  }
  return out;
}

/** An enum type: `$Kind`, then `<encoded member name>: value`. */
function enumType(type: EnumType): JsonObject {
  const members: Record<string, Json> = {};
  for (const member of type.members) members[member.encoded] = member.value;
  return { $Kind: 'EnumType', ...members, ...annotations(descriptionAnnotations(type.description)) };
}

/** A structural property (`$Kind` omitted, as the standard allows for properties). */
function property(type: EntityType, entry: Property): JsonObject {
  return {
    $Type: propertyTypeName(entry),
    ...(entry.nullable ? { $Nullable: true } : {}),
    ...(entry.maxLength === undefined ? {} : { $MaxLength: entry.maxLength }),
    ...(entry.precision === undefined ? {} : { $Precision: entry.precision }),
    ...(entry.scale === undefined ? {} : { $Scale: entry.scale }),
    ...annotations(propertyAnnotations(type, entry)),
  };
}

/** A navigation property; `$ReferentialConstraint` maps source property → target property. */
function navigationProperty(entry: CsdlNavigation): JsonObject {
  return {
    $Kind: 'NavigationProperty',
    $Type: entry.target,
    ...(entry.collection ? { $Collection: true } : {}),
    ...(!entry.collection && entry.nullable ? { $Nullable: true } : {}),
    ...(entry.partner === undefined ? {} : { $Partner: entry.partner }),
    ...(entry.containsTarget ? { $ContainsTarget: true } : {}),
    ...(entry.constraint === undefined ? {} : { $ReferentialConstraint: { [entry.constraint.property]: entry.constraint.referencedProperty } }),
    ...annotations(descriptionAnnotations(entry.description)),
  };
}

/** An entity type: `$Kind`, `$Key`, then properties and navigations in model order. */
function entityType(model: EdmModel, type: EntityType): JsonObject {
  const members: Record<string, Json> = {};
  for (const entry of type.properties) members[entry.name] = property(type, entry);
  for (const entry of csdlNavigations(model, type)) members[entry.name] = navigationProperty(entry);
  return { $Kind: 'EntityType', $Key: [type.key.name], ...members, ...annotations(entityTypeAnnotations(type)) };
}

/** Bound actions grouped by name into overload arrays, in order of first appearance. */
function actions(model: EdmModel): Record<string, Json[]> {
  const byName: Record<string, Json[]> = {};
  for (const { action, bindingType } of csdlActions(model)) {
    const overload: JsonObject = {
      $Kind: 'Action',
      $IsBound: true,
      $Parameter: [{ $Name: 'bindingParameter', $Type: bindingType.qualifiedName }],
      ...(action.returnType === undefined ? {} : { $ReturnType: { $Type: action.returnType.qualifiedName } }),
      ...annotations(descriptionAnnotations(action.description)),
    };
    (byName[action.name] ??= []).push(overload);
  }
  return byName;
}

/** The entity container: one set per entity type, with its navigation property bindings. */
function entityContainer(model: EdmModel): JsonObject {
  const sets: Record<string, Json> = {};
  for (const type of model.entityTypes) {
    const bindings: Record<string, Json> = {};
    for (const binding of navigationBindings(type)) bindings[binding.path] = binding.target;
    sets[type.entitySet] = {
      $Collection: true,
      $Type: type.qualifiedName,
      ...(Object.keys(bindings).length === 0 ? {} : { $NavigationPropertyBinding: bindings }),
      [`@${AGGREGATION_VOCABULARY.alias}.${APPLY_SUPPORTED.term}`]: { Transformations: [...APPLY_SUPPORTED.transformations], Rollup: APPLY_SUPPORTED.rollup },
    };
  }
  return { $Kind: 'EntityContainer', [`@${CAPABILITIES_VOCABULARY.alias}.${BATCH_SUPPORT.term}`]: { ...BATCH_SUPPORT.booleans, SupportedFormats: [...BATCH_SUPPORT.supportedFormats] }, ...sets };
}

/** The CSDL JSON document of `model` (`GET $metadata?$format=json`). */
export function toCsdlJson(model: EdmModel): object {
  const schema: Record<string, Json> = {};
  for (const type of model.enumTypes) schema[type.name] = enumType(type);
  for (const type of model.entityTypes) schema[type.name] = entityType(model, type);
  Object.assign(schema, actions(model));
  for (const entry of csdlTerms(model)) {
    schema[entry.name] = { $Kind: 'Term', $Type: entry.type, $AppliesTo: [entry.appliesTo], ...annotations(descriptionAnnotations(entry.description)) };
  }
  schema[model.service.containerName] = entityContainer(model);
  return {
    $Version: '4.0',
    $EntityContainer: `${model.service.namespace}.${model.service.containerName}`,
    $Reference: {
      [CORE_VOCABULARY.jsonUri]: { $Include: [{ $Namespace: CORE_VOCABULARY.namespace, $Alias: CORE_VOCABULARY.alias }] },
      [AGGREGATION_VOCABULARY.jsonUri]: { $Include: [{ $Namespace: AGGREGATION_VOCABULARY.namespace, $Alias: AGGREGATION_VOCABULARY.alias }] },
      [CAPABILITIES_VOCABULARY.jsonUri]: { $Include: [{ $Namespace: CAPABILITIES_VOCABULARY.namespace, $Alias: CAPABILITIES_VOCABULARY.alias }] },
    },
    [model.service.namespace]: schema,
  };
}
