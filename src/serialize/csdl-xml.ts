/**
 * `$metadata` as CSDL XML (OData CSDL XML Representation 4.0): one schema with the enum types,
 * entity types, bound actions and the entity container, plus a reference to the Core vocabulary.
 * A pure function of the model; the output is deterministic (model order throughout).
 */
import { XMLBuilder } from 'fast-xml-parser';
import type { EdmModel, EntityType, EnumType, Property } from '../edm/model.js';
import { assertNever } from '../util/assert-never.js';
import {
  AGGREGATION_VOCABULARY, APPLY_SUPPORTED, BATCH_SUPPORT, CAPABILITIES_VOCABULARY, CORE_VOCABULARY, csdlActions, csdlNavigations, csdlTerms, descriptionAnnotations, entityTypeAnnotations, navigationBindings, propertyAnnotations, propertyTypeName,
  type CoreAnnotation, type CsdlAction, type CsdlNavigation, type CsdlTerm,
} from './csdl-facts.js';

/** An element for XMLBuilder: `@_`-prefixed keys are attributes, other keys child elements. */
interface XmlElement {
  readonly [name: string]: string | XmlElement | readonly XmlElement[] | readonly string[];
}

const EDMX_NAMESPACE = 'http://docs.oasis-open.org/odata/ns/edmx';
const EDM_NAMESPACE = 'http://docs.oasis-open.org/odata/ns/edm';

/** `{ [name]: list }` when the list is non-empty (an empty list would still be an element to some builders). */
function children(name: string, list: readonly XmlElement[]): XmlElement {
  return list.length === 0 ? {} : { [name]: list };
}

/** An `Annotation` element (CSDL XML §14.3) with its value as attribute or Collection child. */
function annotation(entry: CoreAnnotation): XmlElement {
  const term = `${CORE_VOCABULARY.alias}.${entry.term}`;
  switch (entry.kind) {
    case 'bool':
      return { '@_Term': term, '@_Bool': String(entry.value) };
    case 'enum':
      return { '@_Term': term, '@_EnumMember': `${CORE_VOCABULARY.alias}.${entry.enumType}/${entry.member}` };
    case 'string':
      return { '@_Term': term, '@_String': entry.value };
    case 'strings':
      return { '@_Term': term, Collection: { String: entry.value } };
    case 'alternateKeys':
      return {
        '@_Term': term,
        Collection: {
          Record: entry.keys.map((key) => ({
            '@_Type': `${CORE_VOCABULARY.alias}.AlternateKey`,
            PropertyValue: {
              '@_Property': 'Key',
              Collection: { Record: key.map((name) => ({ '@_Type': `${CORE_VOCABULARY.alias}.PropertyRef`, PropertyValue: { '@_Property': 'Name', '@_PropertyPath': name } })) },
            },
          })),
        },
      };
    default:
      return assertNever(entry, 'annotation kind');
  }
}

/** An `EnumType`; its description comes before the members, where it annotates the type itself. */
function enumType(type: EnumType): XmlElement {
  return {
    '@_Name': type.name,
    ...children('Annotation', descriptionAnnotations(type.description).map(annotation)),
    Member: type.members.map((member) => ({ '@_Name': member.encoded, '@_Value': String(member.value) })),
  };
}

/** A structural `Property` with its facets (Nullable only when false: absence means true in XML). */
function property(type: EntityType, entry: Property): XmlElement {
  return {
    '@_Name': entry.name,
    '@_Type': propertyTypeName(entry),
    ...(entry.nullable ? {} : { '@_Nullable': 'false' }),
    ...(entry.maxLength === undefined ? {} : { '@_MaxLength': String(entry.maxLength) }),
    ...(entry.precision === undefined ? {} : { '@_Precision': String(entry.precision) }),
    ...(entry.scale === undefined ? {} : { '@_Scale': String(entry.scale) }),
    ...children('Annotation', propertyAnnotations(type, entry).map(annotation)),
  };
}

/** A `NavigationProperty` (CSDL XML §8). */
function navigationProperty(entry: CsdlNavigation): XmlElement {
  return {
    '@_Name': entry.name,
    '@_Type': entry.collection ? `Collection(${entry.target})` : entry.target,
    ...(entry.collection || entry.nullable ? {} : { '@_Nullable': 'false' }),
    ...(entry.partner === undefined ? {} : { '@_Partner': entry.partner }),
    ...(entry.containsTarget ? { '@_ContainsTarget': 'true' } : {}),
    ...(entry.constraint === undefined ? {} : { ReferentialConstraint: { '@_Property': entry.constraint.property, '@_ReferencedProperty': entry.constraint.referencedProperty } }),
    ...children('Annotation', descriptionAnnotations(entry.description).map(annotation)),
  };
}

/** An `EntityType` with its key, properties, published navigations and description. */
function entityType(model: EdmModel, type: EntityType): XmlElement {
  return {
    '@_Name': type.name,
    Key: { PropertyRef: { '@_Name': type.key.name } },
    ...children('Property', type.properties.map((entry) => property(type, entry))),
    ...children('NavigationProperty', csdlNavigations(model, type).map(navigationProperty)),
    ...children('Annotation', entityTypeAnnotations(type).map(annotation)),
  };
}

/** A bound `Action` (CSDL XML §12): the binding parameter first, then the return type. */
function action(entry: CsdlAction): XmlElement {
  const returnType = entry.action.returnType;
  return {
    '@_Name': entry.action.name,
    '@_IsBound': 'true',
    Parameter: { '@_Name': 'bindingParameter', '@_Type': entry.bindingType.qualifiedName, '@_Nullable': 'false' },
    // The action answers with the entity it created, never null.
    ...(returnType === undefined ? {} : { ReturnType: { '@_Type': returnType.qualifiedName, '@_Nullable': 'false' } }),
    ...children('Annotation', descriptionAnnotations(entry.action.description).map(annotation)),
  };
}

/** A `Term` (CSDL XML §14.1). */
function term(entry: CsdlTerm): XmlElement {
  return {
    '@_Name': entry.name,
    '@_Type': entry.type,
    '@_AppliesTo': entry.appliesTo,
    ...children('Annotation', descriptionAnnotations(entry.description).map(annotation)),
  };
}

/** `Aggregation.ApplySupported` as an XML annotation: a record with the transformations and the rollup support. */
const applySupported: XmlElement = {
  '@_Term': `${AGGREGATION_VOCABULARY.alias}.${APPLY_SUPPORTED.term}`,
  Record: {
    PropertyValue: [
      { '@_Property': 'Transformations', Collection: { String: APPLY_SUPPORTED.transformations } },
      { '@_Property': 'Rollup', '@_EnumMember': `${AGGREGATION_VOCABULARY.alias}.RollupType/${APPLY_SUPPORTED.rollup}` },
    ],
  },
};

/** `Capabilities.BatchSupport` as an XML annotation: a record of the batch features. */
const batchSupport: XmlElement = {
  '@_Term': `${CAPABILITIES_VOCABULARY.alias}.${BATCH_SUPPORT.term}`,
  Record: {
    PropertyValue: [
      ...Object.entries(BATCH_SUPPORT.booleans).map(([name, value]) => ({ '@_Property': name, '@_Bool': String(value) })),
      { '@_Property': 'SupportedFormats', Collection: { String: BATCH_SUPPORT.supportedFormats } },
    ],
  },
};

/** The `EntityContainer`: one set per entity type (contained types too, as BC exposes them), each declaring `$apply`; the batch features. */
function entityContainer(model: EdmModel): XmlElement {
  return {
    '@_Name': model.service.containerName,
    EntitySet: model.entityTypes.map((type) => ({
      '@_Name': type.entitySet,
      '@_EntityType': type.qualifiedName,
      ...children('NavigationPropertyBinding', navigationBindings(type).map((binding) => ({ '@_Path': binding.path, '@_Target': binding.target }))),
      Annotation: applySupported,
    })),
    Annotation: batchSupport,
  };
}

/** The CSDL XML document of `model` (`GET $metadata`). */
export function toCsdlXml(model: EdmModel): string {
  const builder = new XMLBuilder({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    format: true,
    indentBy: '  ',
    suppressEmptyNode: true,
    // Keep `Bool="true"`: the default would write a bare (invalid) attribute name.
    suppressBooleanAttributes: false,
  });
  const document: XmlElement = {
    '?xml': { '@_version': '1.0', '@_encoding': 'utf-8' },
    'edmx:Edmx': {
      '@_Version': '4.0',
      '@_xmlns:edmx': EDMX_NAMESPACE,
      'edmx:Reference': [CORE_VOCABULARY, AGGREGATION_VOCABULARY, CAPABILITIES_VOCABULARY].map((v) => ({
        '@_Uri': v.xmlUri,
        'edmx:Include': { '@_Namespace': v.namespace, '@_Alias': v.alias },
      })),
      'edmx:DataServices': {
        Schema: {
          '@_xmlns': EDM_NAMESPACE,
          '@_Namespace': model.service.namespace,
          ...children('EnumType', model.enumTypes.map(enumType)),
          ...children('EntityType', model.entityTypes.map((type) => entityType(model, type))),
          ...children('Action', csdlActions(model).map(action)),
          ...children('Term', csdlTerms(model).map(term)),
          EntityContainer: entityContainer(model),
        },
      },
    },
  };
  return builder.build(document) as string;
}
