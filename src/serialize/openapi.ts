/**
 * `GET {base}/openapi.json`: an OpenAPI 3.1 description of the service (conventions §9), generated from
 * the model $metadata is written from, so a new entity file appears in it without a code change. It
 * follows the OASIS "OData to OpenAPI Mapping" where that fits this service: one tag per entity set,
 * the system query options as parameters (with the set's property and navigation names to pick from),
 * read/create/update schemas per entity type, the OData error body, and the two security schemes.
 * The server URL is the service root path, relative to the document, so one document serves every
 * host name the service is reached by. A pure, deterministic function of the model.
 */
import type { EdmModel, EntityType } from '../edm/model.js';
import { entitySetPaths } from './openapi-paths.js';
import { componentSchemas, ERROR_SCHEMA, schemaRef, type Json, type JsonObject } from './openapi-schemas.js';

/** Where the description is served, below the service root. */
export const OPENAPI_PATH = '/openapi.json';

/** What the description says about access. */
export interface OpenApiOptions {
  /** The service document, $metadata and this description need no credentials (conventions §7). */
  readonly publicMetadata: boolean;
}

/** A query parameter of a list of names, comma-separated (`$select=a,b`). */
function namesParameter(name: string, description: string, names: readonly string[]): JsonObject {
  return { name, in: 'query', description, style: 'form', explode: false, schema: { type: 'array', uniqueItems: true, items: { type: 'string', enum: names } } };
}

/** `$select`, `$expand` and `$orderby` of each type, with its names to choose from. */
function typeParameters(type: EntityType): Record<string, JsonObject> {
  const properties = type.properties.filter((p) => p.storage.kind !== 'media').map((p) => p.name);
  const navigations = type.navigations.filter((n) => n.exposed).map((n) => n.name);
  return {
    [`select.${type.name}`]: namesParameter('$select', 'The properties to return (OData URL Conventions §5.1.3).', properties),
    [`expand.${type.name}`]: namesParameter('$expand', 'Related entities to return inline; nested options in parentheses, e.g. engChangeNoticeComments($top=5) (OData URL Conventions §5.1.2).', navigations),
    [`orderby.${type.name}`]: namesParameter('$orderby', 'Sort order; the key is always appended (OData URL Conventions §5.1.4).', properties.flatMap((p) => [p, `${p} desc`])),
  };
}

/** The parameters every set shares. */
function commonParameters(model: EdmModel): Record<string, JsonObject> {
  return {
    companyId: { name: 'companyId', in: 'path', required: true, description: `The id of one of your companies (GET /${model.company.entitySet}).`, schema: { type: 'string', format: 'uuid' } },
    company: { name: 'company', in: 'query', description: 'The company (id or name) of an unscoped URL; default: your default company, or your only one.', schema: { type: 'string' } },
    apply: {
      name: '$apply',
      in: 'query',
      description:
        'Aggregation computed by the service (OData Data Aggregation 4.0), e.g. groupby((status),aggregate($count as n)): aggregate, groupby, filter, orderby, top, skip, identity, concat. ' +
        'The answer then holds aggregated instances (grouping properties and aliases) instead of entities; $filter, $orderby, $top, $skip and $count apply to them.',
      schema: { type: 'string' },
    },
    filter: { name: '$filter', in: 'query', description: "A condition, e.g. status eq 'Approved' and contains(number,'00') (OData URL Conventions §5.1.1).", schema: { type: 'string' } },
    top: { name: '$top', in: 'query', description: 'At most this many entities (OData URL Conventions §5.1.6).', schema: { type: 'integer', minimum: 0 } },
    skip: { name: '$skip', in: 'query', description: 'Skip this many entities (OData URL Conventions §5.1.7).', schema: { type: 'integer', minimum: 0 } },
    count: { name: '$count', in: 'query', description: 'Include @odata.count, the number of matching entities over all pages (OData URL Conventions §5.1.8).', schema: { type: 'boolean' } },
    maxpagesize: {
      name: 'Prefer',
      in: 'header',
      description: `odata.maxpagesize=N asks for pages of at most N entities (at most ${model.service.maxPageSize}; default ${model.service.pageSize}).`,
      schema: { type: 'string', pattern: '^odata\\.maxpagesize=[0-9]+$' },
    },
    ifMatch: { name: 'If-Match', in: 'header', required: true, description: 'The @odata.etag of the entity as read, or * for any version: a stale one answers 412.', schema: { type: 'string' } },
    ifMatchOptional: { name: 'If-Match', in: 'header', description: 'The @odata.etag of the entity as read: a stale one answers 412.', schema: { type: 'string' } },
    ifNoneMatch: { name: 'If-None-Match', in: 'header', description: 'An @odata.etag as read: while the entity still has it (or with *), 304 Not Modified without a body, for a media value or an answer of properties kept in the row (no computed property, no $expand); other answers come in full.', schema: { type: 'string' } },
    ifNoneMatchWrite: { name: 'If-None-Match', in: 'header', description: 'An @odata.etag, or *: when the entity is in that version (* in any), 412 and nothing changes. If-Match is still required where it is.', schema: { type: 'string' } },
    preferReturn: { name: 'Prefer', in: 'header', description: 'return=minimal answers 204 without the changed entity.', schema: { type: 'string', enum: ['return=minimal', 'return=representation'] } },
  };
}

/** The service document, $metadata and this description. */
function servicePaths(publicMetadata: boolean): Record<string, JsonObject> {
  const security: Record<string, Json> = publicMetadata ? { security: [] } : {};
  const get = (operationId: string, summary: string, content: JsonObject): JsonObject => ({
    get: { tags: ['service'], operationId, summary, ...security, responses: { '200': { description: summary, content }, '4XX': { $ref: '#/components/responses/error' } } },
  });
  return {
    '/': get('service-document', 'The service document: the entity sets', { 'application/json': { schema: { type: 'object', properties: { '@odata.context': { type: 'string' }, value: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, kind: { type: 'string' }, url: { type: 'string' } } } } } } } }),
    '/$metadata': get('service-metadata', 'The metadata document (CSDL XML; CSDL JSON with $format=json)', { 'application/xml': { schema: { type: 'string' } }, 'application/json': { schema: { type: 'object' } } }),
    [OPENAPI_PATH]: get('service-openapi', 'This OpenAPI description', { 'application/json': { schema: { type: 'object' } } }),
    '/$batch': { post: batchOperation() },
  };
}

/** `POST /$batch` (OData Protocol §11.7, JSON Format §19): several requests in one, change sets in one transaction. */
function batchOperation(): JsonObject {
  const request = {
    type: 'object',
    required: ['id', 'method', 'url'],
    properties: {
      id: { type: 'string' },
      method: { type: 'string', enum: ['get', 'post', 'patch', 'put', 'delete', 'GET', 'POST', 'PATCH', 'PUT', 'DELETE'] },
      url: { type: 'string', description: 'Relative to the service root; `$<id>/...` addresses what request <id> created.' },
      atomicityGroup: { type: 'string', description: 'Requests of one group (adjacent) run in one transaction: all or nothing.' },
      dependsOn: { type: 'array', items: { type: 'string' } },
      headers: { type: 'object', additionalProperties: { type: 'string' } },
      body: {},
    },
  };
  const multipart = { schema: { type: 'string', description: 'multipart/mixed with a boundary parameter: application/http parts and multipart/mixed change sets.' } };
  return {
    tags: ['service'],
    operationId: 'service-batch',
    summary: 'Several requests in one: multipart/mixed (OData 4.0, change sets) or JSON (OData 4.01, atomicity groups)',
    requestBody: { required: true, content: { 'multipart/mixed': multipart, 'application/json': { schema: { type: 'object', required: ['requests'], properties: { requests: { type: 'array', items: request } } } } } },
    responses: {
      '200': { description: 'One response per request (in the format Accept names, else the request’s)', content: { 'multipart/mixed': multipart, 'application/json': { schema: { type: 'object', properties: { responses: { type: 'array', items: { type: 'object' } } } } } } },
      '4XX': { $ref: '#/components/responses/error' },
    },
  };
}

/** The OpenAPI 3.1 document of `model`. */
export function toOpenApi(model: EdmModel, options: OpenApiOptions): JsonObject {
  const parameters: Record<string, JsonObject> = commonParameters(model);
  for (const type of model.entityTypes) Object.assign(parameters, typeParameters(type));
  const how = 'Authorize with **bearerAuth**: an API token from `ecn-odata token` (or a JWT of the configured identity provider), or with **basicAuth**: your user id as user name and an API token as password.';
  return {
    openapi: '3.1.0',
    info: {
      title: model.app?.name ?? `${model.service.namespace} OData service`,
      version: model.app?.version ?? '1.0.0',
      description: `An OData 4.0 service. Company-scoped sets are reached as \`/${model.company.entitySet}({companyId})/<set>\` or as \`/<set>\` (with \`?company=\`, or your default company). ${how} The metadata document is at \`$metadata\`.`,
    },
    servers: [{ url: model.service.serviceRoot, description: 'The service root' }],
    security: [{ bearerAuth: [] }, { basicAuth: [] }],
    tags: [{ name: 'service', description: 'The service document and the metadata' }, ...model.entityTypes.map((type) => ({ name: type.entitySet, ...(type.description === undefined ? {} : { description: type.description }) }))],
    paths: { ...servicePaths(options.publicMetadata), ...entitySetPaths(model) },
    components: {
      schemas: componentSchemas(model),
      parameters,
      headers: {
        ETag: { description: 'The entity’s version, for If-Match', schema: { type: 'string' } },
        Location: { description: 'The URL of the created entity', schema: { type: 'string', format: 'uri' } },
      },
      responses: {
        error: { description: 'An OData error (401s name the accepted schemes in WWW-Authenticate)', content: { 'application/json': { schema: schemaRef(ERROR_SCHEMA) } } },
      },
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API token from `ecn-odata token`, or a JWT of the configured identity provider.' },
        basicAuth: { type: 'http', scheme: 'basic', description: 'Your user id as user name and an API token from `ecn-odata token` as password (Excel and Power BI: the Basic credential).' },
      },
    },
  };
}
