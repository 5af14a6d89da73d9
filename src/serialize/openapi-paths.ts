/**
 * The paths of the OpenAPI description (openapi.ts): for every entity set, in each URL form it has
 * (conventions §1: company-scoped `companies({companyId})/<set>`, and unscoped `<set>` with the
 * `company` query option), its collection, `$count`, the entity by key and by each alternate key, the
 * entity's navigations, bound actions and media properties; only the methods the set's capabilities
 * allow (the others answer 405). Paths follow the OASIS "OData to OpenAPI Mapping" (keys in
 * parentheses, bound actions by qualified name); every operation is tagged with its entity set.
 */
import type { BoundAction, EdmModel, EntityType, NavigationProperty, Property } from '../edm/model.js';
import { schemaNames, schemaRef, type Json, type JsonObject } from './openapi-schemas.js';

/** 'a' or 'an' before a name, by its first letter (engChangeNotice: an). */
function article(name: string): string {
  return /^[aeiou]/i.test(name) ? 'an' : 'a';
}

/** `{"$ref": "#/components/parameters/<name>"}`. */
export function parameterRef(name: string): JsonObject {
  return { $ref: `#/components/parameters/${name}` };
}

/** The 4XX and 5XX answers of every operation: an OData error body. */
const ERRORS: JsonObject = { '4XX': { $ref: '#/components/responses/error' }, '5XX': { $ref: '#/components/responses/error' } };

/** A JSON response body with the OData media type. */
function json(schema: JsonObject): JsonObject {
  return { 'application/json': { schema } };
}

/** One URL form of a set: the path before the set name and what it brings along. */
interface UrlForm {
  readonly prefix: string;
  readonly parameters: readonly JsonObject[];
  /** Distinguishes the forms' operation ids. */
  readonly idPrefix: string;
  readonly label: string;
}

/** The URL forms of a type: unscoped first (the shorter one), then company-scoped (conventions §1: every set has both). */
function urlForms(model: EdmModel, type: EntityType): UrlForm[] {
  if (type.scope === 'global') return [{ prefix: '', parameters: [], idPrefix: '', label: '' }];
  const scoped: UrlForm = { prefix: `/${model.company.entitySet}({companyId})`, parameters: [parameterRef('companyId')], idPrefix: 'company-', label: ' (company in the URL)' };
  return [{ prefix: '', parameters: [parameterRef('company')], idPrefix: '', label: ' (company from ?company=, or your default company)' }, scoped];
}

/** A key value in a path template: quoted for strings (OData URL Conventions §4.3.1). */
function keyTemplate(property: Property): string {
  const quoted = property.type.kind === 'enum' || (property.type.kind === 'primitive' && property.type.name === 'Edm.String');
  return quoted ? `'{${property.name}}'` : `{${property.name}}`;
}

/** A path parameter for a key property. */
function keyParameter(property: Property): JsonObject {
  const schema: JsonObject =
    property.type.kind === 'primitive' && property.type.name === 'Edm.Guid'
      ? { type: 'string', format: 'uuid' }
      : property.type.kind === 'primitive' && (property.type.name === 'Edm.Int32' || property.type.name === 'Edm.Int64')
        ? { type: 'integer' }
        : { type: 'string' };
  return { name: property.name, in: 'path', required: true, description: `Key: ${property.name}`, schema };
}

/** The query options of a read of `type`: the set-specific ones are components (openapi.ts). */
function readOptions(type: EntityType, collection: boolean): JsonObject[] {
  const own = [parameterRef(`select.${type.name}`), parameterRef(`expand.${type.name}`)];
  if (!collection) return own;
  return [parameterRef('apply'), parameterRef('filter'), parameterRef(`orderby.${type.name}`), parameterRef('top'), parameterRef('skip'), parameterRef('count'), ...own, parameterRef('maxpagesize')];
}

/** An operation with the common parts. */
function operation(type: EntityType, form: UrlForm, id: string, summary: string, rest: Record<string, Json>): JsonObject {
  const responses = { ...(rest['responses'] as JsonObject), ...ERRORS };
  return { tags: [type.entitySet], operationId: `${form.idPrefix}${type.entitySet}-${id}`, summary: `${summary}${form.label}`, ...rest, responses };
}

/** The collection, its $count, and POST where allowed. */
function collectionPaths(type: EntityType, form: UrlForm, out: Record<string, JsonObject>): void {
  const names = schemaNames(type);
  const base = `${form.prefix}/${type.entitySet}`;
  const item: Record<string, Json> = {
    get: operation(type, form, 'list', `Read ${type.entitySet}`, {
      description: 'A page of at most the server page size; follow `@odata.nextLink` for the next one.',
      parameters: readOptions(type, true),
      responses: { '200': { description: `A page of ${type.entitySet}`, content: json(schemaRef(names.collection)) } },
    }),
  };
  if (type.capabilities.insertable) {
    item['post'] = operation(type, form, 'create', `Create ${article(type.name)} ${type.name}`, {
      requestBody: { required: true, content: json(schemaRef(names.create)) },
      responses: { '201': { description: 'Created', headers: { Location: { $ref: '#/components/headers/Location' }, ETag: { $ref: '#/components/headers/ETag' } }, content: json(schemaRef(names.read)) } },
    });
  }
  out[base] = { parameters: [...form.parameters], ...item };
  out[`${base}/$count`] = {
    parameters: [...form.parameters],
    get: operation(type, form, 'count', `Count ${type.entitySet}`, {
      parameters: [parameterRef('apply'), parameterRef('filter')],
      responses: { '200': { description: 'The number of entities that match (of aggregated instances with $apply)', content: { 'text/plain': { schema: { type: 'integer', minimum: 0 } } } } },
    }),
  };
}

/** The answer to a GET whose If-None-Match matches (core/conditional-get.ts). */
const NOT_MODIFIED: Json = { description: 'Not Modified: the If-None-Match header names the current ETag (or is *); no body', headers: { ETag: { $ref: '#/components/headers/ETag' } } };

/** GET, PATCH, PUT and DELETE of one entity addressed by `keyPath`; `id` tells the key used. */
function entityOperations(type: EntityType, form: UrlForm, id: string, by: string): Record<string, Json> {
  const names = schemaNames(type);
  const entity = { '200': { description: `The ${type.name}`, headers: { ETag: { $ref: '#/components/headers/ETag' } }, content: json(schemaRef(names.read)) } };
  const ops: Record<string, Json> = {
    get: operation(type, form, `get${id}`, `Read ${article(type.name)} ${type.name}${by}`, { parameters: [...readOptions(type, false), parameterRef('ifNoneMatch')], responses: { ...entity, '304': NOT_MODIFIED } }),
  };
  if (type.capabilities.updatable) {
    ops['patch'] = operation(type, form, `update${id}`, `Change ${article(type.name)} ${type.name}${by}`, {
      parameters: [parameterRef('ifMatch'), parameterRef('ifNoneMatchWrite'), parameterRef('preferReturn')],
      requestBody: { required: true, content: json(schemaRef(names.update)) },
      responses: { ...entity, '204': { description: 'Changed (with Prefer: return=minimal)' } },
    });
    ops['put'] = operation(type, form, `replace${id}`, `Replace ${article(type.name)} ${type.name}${by} (what the body leaves out returns to its default, or null)`, {
      parameters: [parameterRef('ifMatch'), parameterRef('ifNoneMatchWrite'), parameterRef('preferReturn')],
      requestBody: { required: true, content: json(schemaRef(names.update)) },
      responses: { ...entity, '204': { description: 'Replaced (with Prefer: return=minimal)' } },
    });
  }
  if (type.capabilities.deletable) {
    const ifMatch = parameterRef(type.capabilities.deleteRequiresIfMatch ? 'ifMatch' : 'ifMatchOptional');
    ops['delete'] = operation(type, form, `delete${id}`, `Delete ${article(type.name)} ${type.name}${by}`, { parameters: [ifMatch, parameterRef('ifNoneMatchWrite')], responses: { '204': { description: 'Deleted' } } });
  }
  return ops;
}

/** A navigation from one entity: GET, and POST into a contained collection whose type allows it. */
function navigationItem(type: EntityType, form: UrlForm, nav: NavigationProperty): Record<string, Json> {
  const target = schemaNames(nav.target);
  const item: Record<string, Json> = {
    get: operation(type, form, `get-${nav.name}`, `Read the ${nav.name} of ${article(type.name)} ${type.name}`, {
      parameters: readOptions(nav.target, nav.collection),
      responses: { '200': { description: nav.collection ? `A page of ${nav.name}` : `The ${nav.name}`, content: json(schemaRef(nav.collection ? target.collection : target.read)) } },
    }),
  };
  if (nav.collection && nav.containsTarget && nav.target.capabilities.insertable) {
    item['post'] = operation(type, form, `create-${nav.name}`, `Create ${article(nav.target.name)} ${nav.target.name} in ${article(type.name)} ${type.name}`, {
      requestBody: { required: true, content: json(schemaRef(target.create)) },
      responses: { '201': { description: 'Created', headers: { Location: { $ref: '#/components/headers/Location' } }, content: json(schemaRef(target.read)) } },
    });
  }
  return item;
}

/** A bound action: POST without a body (OData URL Conventions §4.5.1.1). */
function actionItem(type: EntityType, form: UrlForm, action: BoundAction): Record<string, Json> {
  const result: JsonObject =
    action.returnType === undefined
      ? { '204': { description: 'Done' } }
      : { '200': { description: `The ${action.returnType.name} it created`, content: json(schemaRef(schemaNames(action.returnType).read)) } };
  return {
    post: operation(type, form, action.name, `${action.name} (bound action of ${type.name})`, {
      ...(action.description === undefined ? {} : { description: action.description }),
      parameters: [parameterRef('ifMatchOptional'), parameterRef('ifNoneMatchWrite')],
      responses: result,
    }),
  };
}

/** A media property: GET its bytes, PUT new ones (If-Match required). */
function mediaItem(type: EntityType, form: UrlForm, property: Property, contentType: string): Record<string, Json> {
  const content = { [contentType]: { schema: { type: 'string' } } };
  return {
    get: operation(type, form, `get-${property.name}`, `Read the ${property.name} of ${article(type.name)} ${type.name}`, {
      parameters: [parameterRef('ifNoneMatch')],
      responses: { '200': { description: property.description ?? property.name, content }, '304': NOT_MODIFIED },
    }),
    put: operation(type, form, `put-${property.name}`, `Replace the ${property.name} of ${article(type.name)} ${type.name}`, {
      parameters: [parameterRef('ifMatch'), parameterRef('ifNoneMatchWrite')],
      requestBody: { required: true, content },
      responses: { '204': { description: 'Replaced' } },
    }),
  };
}

/** Everything below one entity addressed by its key. */
function entityPaths(type: EntityType, form: UrlForm, out: Record<string, JsonObject>): void {
  const entity = `${form.prefix}/${type.entitySet}(${keyTemplate(type.key)})`;
  const keyParams = [...form.parameters, keyParameter(type.key)];
  out[entity] = { parameters: keyParams, ...entityOperations(type, form, '', '') };
  for (const key of type.alternateKeys) {
    const path = `${form.prefix}/${type.entitySet}(${key.map((p) => `${p.name}=${keyTemplate(p)}`).join(',')})`;
    out[path] = { parameters: [...form.parameters, ...key.map(keyParameter)], ...entityOperations(type, form, `-by-${key.map((p) => p.name).join('-')}`, ` by ${key.map((p) => p.name).join(' and ')}`) };
  }
  for (const nav of type.navigations) if (nav.exposed) out[`${entity}/${nav.name}`] = { parameters: keyParams, ...navigationItem(type, form, nav) };
  for (const action of type.actions) out[`${entity}/${action.qualifiedName}`] = { parameters: keyParams, ...actionItem(type, form, action) };
  for (const p of type.properties) {
    if (p.storage.kind === 'media') out[`${entity}/${p.name}`] = { parameters: keyParams, ...mediaItem(type, form, p, p.storage.contentType) };
  }
}

/** The paths of every entity set in every URL form. */
export function entitySetPaths(model: EdmModel): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  for (const type of model.entityTypes) {
    for (const form of urlForms(model, type)) {
      collectionPaths(type, form, out);
      entityPaths(type, form, out);
    }
  }
  return out;
}
