/**
 * The JSON Schemas (2020-12, as OpenAPI 3.1 §4.8.24 uses them) of the model's enum and entity types,
 * for openapi.ts: per entity type one schema of what a read returns, one of a POST body (`-create`:
 * the writable properties, required ones required) and one of a PATCH body (`-update`: the properties
 * writable after creation), as the OASIS OData-to-OpenAPI mapping does; and the OData error body.
 * Everything is derived from the model that $metadata is written from (csdl-facts.ts).
 */
import type { EdmModel, EntityType, EnumType, Property } from '../edm/model.js';
import { propertySchema as bodyPropertySchema } from '../validation/body-schemas.js';

/** A JSON value of the OpenAPI document. */
export type Json = string | number | boolean | null | readonly Json[] | { readonly [member: string]: Json };
/** A JSON object of the OpenAPI document. */
export type JsonObject = { readonly [member: string]: Json };

/** `{"$ref": "#/components/schemas/<name>"}`. */
export function schemaRef(name: string): JsonObject {
  return { $ref: `#/components/schemas/${name}` };
}

/** The component names of an entity type's schemas. */
export function schemaNames(type: EntityType): { readonly read: string; readonly create: string; readonly update: string; readonly collection: string } {
  return { read: type.qualifiedName, create: `${type.qualifiedName}-create`, update: `${type.qualifiedName}-update`, collection: `${type.qualifiedName}-collection` };
}

/** The component name of the OData error body. */
export const ERROR_SCHEMA = 'odata.error';

/** `schema` or null (JSON Schema 2020-12 has no `nullable`). */
function orNull(schema: JsonObject): JsonObject {
  const type = schema['type'];
  if (typeof type === 'string') return { ...schema, type: [type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/**
 * The schema of a property's value: the one request bodies are validated with
 * (validation/body-schemas.ts), which also describes what reads write, with enum types by reference
 * and the property's description.
 */
function propertySchema(property: Property): JsonObject {
  const type = property.type;
  const schema: JsonObject = type.kind === 'enum' ? schemaRef(type.enumType.qualifiedName) : (bodyPropertySchema({ ...property, nullable: false }) as JsonObject);
  const described = property.description === undefined ? schema : { ...schema, description: property.description };
  return property.nullable ? orNull(described) : described;
}

/** An enum type: its members' names as written on the wire (conventions §2). */
function enumSchema(type: EnumType): JsonObject {
  const renamed = type.members.filter((m) => m.encoded !== m.name).map((m) => `\`${m.encoded}\` is '${m.name}'`);
  const notes = [type.description, renamed.length === 0 ? undefined : `Member names are OData-encoded: ${renamed.join(', ')}.`].filter((x) => x !== undefined);
  return { type: 'string', title: type.name, enum: type.members.map((m) => m.encoded), ...(notes.length === 0 ? {} : { description: notes.join(' ') }) };
}

/** POST bodies: the key is left out, since the service generates keys (conventions §11). */
const isWritableOnCreate = (type: EntityType, p: Property): boolean => p !== type.key && p.storage.kind === 'column' && (p.writable === 'always' || p.writable === 'create') && !p.autoModified;
const isWritableOnUpdate = (_type: EntityType, p: Property): boolean => p.storage.kind === 'column' && p.writable === 'always' && !p.autoModified;

/** What a read returns for one entity: `@odata.etag`, the properties, media links, expanded navigations. */
function readSchema(type: EntityType): JsonObject {
  const properties: Record<string, Json> = { '@odata.etag': { type: 'string', readOnly: true, description: 'The entity’s version, for If-Match.' } };
  for (const p of type.properties) {
    if (p.storage.kind === 'media') {
      properties[`${p.name}@odata.mediaReadLink`] = { type: 'string', format: 'uri', readOnly: true, description: `GET ${p.name} here.` };
      properties[`${p.name}@odata.mediaEditLink`] = { type: 'string', format: 'uri', readOnly: true, description: `PUT ${p.name} here (with If-Match).` };
      properties[`${p.name}@odata.mediaContentType`] = { type: 'string', const: p.storage.contentType, readOnly: true };
      continue;
    }
    const schema = propertySchema(p);
    properties[p.name] = p.writable === 'never' || p.storage.kind === 'computed' || p.autoModified ? { ...schema, readOnly: true } : schema;
  }
  for (const nav of type.navigations) {
    if (!nav.exposed) continue;
    const ref = schemaRef(schemaNames(nav.target).read);
    properties[nav.name] = nav.collection
      ? { type: 'array', items: ref, description: `With $expand=${nav.name}.` }
      : { anyOf: [ref, { type: 'null' }], description: `With $expand=${nav.name}.` };
  }
  return { type: 'object', title: type.name, ...(type.description === undefined ? {} : { description: type.description }), properties };
}

/** A POST or PATCH body: the properties `writable` selects; on POST the required ones are required. */
function writeSchema(type: EntityType, writable: (type: EntityType, p: Property) => boolean, op: 'create' | 'update'): JsonObject {
  const properties: Record<string, Json> = {};
  const required: string[] = [];
  for (const p of type.properties) {
    if (!writable(type, p)) continue;
    properties[p.name] = propertySchema(p);
    if (op === 'create' && p.required) required.push(p.name);
  }
  return { type: 'object', title: `${type.name} (${op})`, properties, ...(required.length === 0 ? {} : { required }) };
}

/** A page of a collection (OData JSON Format §12). */
function collectionSchema(type: EntityType): JsonObject {
  return {
    type: 'object',
    title: `Collection of ${type.name}`,
    properties: {
      '@odata.context': { type: 'string' },
      '@odata.count': { type: 'integer', description: 'With $count=true: the number of entities that match, over all pages.' },
      value: { type: 'array', items: schemaRef(schemaNames(type).read) },
      '@odata.nextLink': { type: 'string', format: 'uri', description: 'The next page, when there is one: follow it as it is.' },
    },
    required: ['value'],
  };
}

/** The OData error body (OData JSON Format §21, conventions §3). */
function errorSchema(): JsonObject {
  const detail: JsonObject = { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' }, target: { type: 'string' } }, required: ['code', 'message'] };
  return {
    type: 'object',
    title: 'OData error',
    properties: {
      error: {
        type: 'object',
        properties: { code: { type: 'string', description: 'A Business Central error code, e.g. BadRequest_NotFound.' }, message: { type: 'string' }, target: { type: 'string' }, details: { type: 'array', items: detail } },
        required: ['code', 'message'],
      },
    },
    required: ['error'],
  };
}

/** Every schema of the document, by component name. */
export function componentSchemas(model: EdmModel): Record<string, JsonObject> {
  const schemas: Record<string, JsonObject> = {};
  for (const type of model.enumTypes) schemas[type.qualifiedName] = enumSchema(type);
  for (const type of model.entityTypes) {
    const names = schemaNames(type);
    schemas[names.read] = readSchema(type);
    if (type.capabilities.insertable) schemas[names.create] = writeSchema(type, isWritableOnCreate, 'create');
    if (type.capabilities.updatable) schemas[names.update] = writeSchema(type, isWritableOnUpdate, 'update');
    schemas[names.collection] = collectionSchema(type);
  }
  schemas[ERROR_SCHEMA] = errorSchema();
  return schemas;
}
