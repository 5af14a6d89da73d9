/**
 * `{base}/openapi.json` (conventions §9): a valid OpenAPI 3.1 document (checked by an OpenAPI schema
 * validator), generated from the model: every entity set in both URL forms with keys, query options,
 * actions and media; schemas that the service's real responses satisfy (checked with ajv's JSON Schema
 * 2020-12); the error body and both security schemes; a new entity file shows up without code changes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { REPO_METADATA, startTestService, type TestService } from '../helpers/test-service.js';

type Doc = {
  paths: Record<string, Record<string, { operationId?: string; tags?: string[]; parameters?: { $ref?: string; name?: string }[] } | unknown>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { type: string; scheme: string }> };
  tags: { name: string }[];
  servers: { url: string }[];
};

let t: TestService;
let doc: Doc;
beforeAll(async () => {
  t = await startTestService();
  const r = await t.call('GET', '/openapi.json', { token: null });
  expect(r.status).toBe(200);
  expect(r.headers['Content-Type']).toBe('application/json');
  doc = r.json;
});
afterAll(() => t.close());

/** An ajv over the document's schemas: `validate(name, value)` checks a value against one of them. */
function schemaValidator(d: Doc): (name: string, value: unknown) => string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'https://openapi.test/doc.json', components: { schemas: d.components.schemas } });
  return (name, value) => {
    const validate = ajv.getSchema(`https://openapi.test/doc.json#/components/schemas/${name}`);
    if (validate === undefined) throw new Error(`no schema ${name}`);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
  };
}

test('it is valid OpenAPI 3.1 by the official schema, with resolvable references', async () => {
  const validator = new Validator();
  // The validator resolves references in place: it gets a copy.
  const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
  expect(() => validator.resolveRefs()).not.toThrow();
  expect(doc.servers).toEqual([{ url: '/api/v2.0', description: 'The service root' }]);
});

test('every entity set is there in each URL form it has, with key, $count, navigations, actions and media', () => {
  const model = t.service.model;
  for (const type of model.entityTypes) {
    expect(doc.tags.map((tag) => tag.name)).toContain(type.entitySet);
    const prefixes = type.scope === 'global' ? [''] : [`/companies({companyId})`, ''];
    for (const prefix of prefixes) {
      const set = `${prefix}/${type.entitySet}`;
      // A string key is quoted in the URL: subscriptions('{subscriptionId}').
      const key = type.key.type.kind === 'primitive' && type.key.type.name === 'Edm.String' ? `'{${type.key.name}}'` : `{${type.key.name}}`;
      const entity = `${set}(${key})`;
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining([set, `${set}/$count`, entity]));
      for (const nav of type.navigations.filter((n) => n.exposed)) expect(doc.paths).toHaveProperty([`${entity}/${nav.name}`, 'get']);
      for (const action of type.actions) expect(doc.paths).toHaveProperty([`${entity}/${action.qualifiedName}`, 'post']);
      for (const media of type.properties.filter((p) => p.storage.kind === 'media')) expect(Object.keys(doc.paths[`${entity}/${media.name}`] ?? {})).toEqual(expect.arrayContaining(['get', 'put']));
      expect(Object.keys(doc.paths[set] ?? {}).includes('post')).toBe(type.capabilities.insertable);
      expect(Object.keys(doc.paths[entity] ?? {}).includes('patch')).toBe(type.capabilities.updatable);
      expect(Object.keys(doc.paths[entity] ?? {}).includes('put')).toBe(type.capabilities.updatable);
      expect(Object.keys(doc.paths[entity] ?? {}).includes('delete')).toBe(type.capabilities.deletable);
    }
  }
  // The sets of the demo model that are both company-scoped and unscoped, spot-checked by name.
  expect(doc.paths).toHaveProperty(['/$batch', 'post']);
  expect(doc.paths).toHaveProperty(['/companies({companyId})/engChangeNotices({id})/Microsoft.NAV.createEngChangeOrder', 'post']);
  expect(doc.paths).toHaveProperty(['/engChangeNotices({id})/Microsoft.NAV.createEngChangeOrder', 'post']);
  expect(doc.paths).toHaveProperty(['/engChangeOrders({id})/changeDescription', 'put']);
  expect(doc.paths).toHaveProperty(["/externalbusinesseventdefinitions(appId={appId},name='{name}',eventVersion='{eventVersion}')", 'get']);
});

test('summaries read as English: "an" before a vowel', () => {
  const summaries = Object.values(doc.paths).flatMap((item) => Object.values(item as Record<string, { summary?: string }>).map((op) => op.summary ?? ''));
  expect(summaries.some((s) => s.startsWith('Create an engChangeNotice '))).toBe(true);
  expect(summaries.some((s) => s.startsWith('Create an engChangeNoticeComment in an engChangeNotice'))).toBe(true);
  expect(summaries.filter((s) => /\ba [aeiouAEIOU]/.test(s))).toEqual([]);
});

test('operation ids are unique; list operations take the query options, unscoped ones ?company=', () => {
  const ids: string[] = [];
  for (const item of Object.values(doc.paths)) for (const op of Object.values(item)) if (typeof op === 'object' && op !== null && 'operationId' in op) ids.push(String(op.operationId));
  expect(new Set(ids).size).toBe(ids.length);
  const list = doc.paths['/engChangeNotices']?.['get'] as { parameters: { $ref: string }[] };
  expect(list.parameters.map((p) => p.$ref.split('/').pop())).toEqual(['apply', 'filter', 'orderby.engChangeNotice', 'top', 'skip', 'count', 'select.engChangeNotice', 'expand.engChangeNotice', 'maxpagesize']);
  expect(doc.paths['/engChangeNotices']?.['parameters']).toEqual([{ $ref: '#/components/parameters/company' }]);
  expect(doc.paths['/companies({companyId})/engChangeNotices']?.['parameters']).toEqual([{ $ref: '#/components/parameters/companyId' }]);
  // Conditional requests: If-None-Match on the GET of one entity (304) and on its changes (412).
  const refs = (path: string, method: string): (string | undefined)[] => ((doc.paths[path]?.[method] as { parameters: { $ref: string }[] }).parameters ?? []).map((p) => p.$ref.split('/').pop());
  expect(refs('/engChangeNotices({id})', 'get')).toContain('ifNoneMatch');
  expect(doc.paths['/engChangeNotices({id})']?.['get']).toHaveProperty(['responses', '304']);
  expect(refs('/engChangeNotices({id})', 'patch')).toEqual(['ifMatch', 'ifNoneMatchWrite', 'preferReturn']);
  expect(refs('/engChangeOrders({id})/changeDescription', 'get')).toEqual(['ifNoneMatch']);
  expect(refs('/engChangeOrders({id})/changeDescription', 'put')).toEqual(['ifMatch', 'ifNoneMatchWrite']);
});

test('schemas: enums with encoded member names, read-only and required properties, the error body, the security schemes', () => {
  const schemas = doc.components.schemas as Record<string, { enum?: string[]; properties?: Record<string, { readOnly?: boolean }>; required?: string[] }>;
  expect(schemas['Microsoft.NAV.ecnSourceType']?.enum).toContain('Prod_x002E__x0020_Order');
  expect(schemas['Microsoft.NAV.engChangeNotice']?.properties?.['bomExists']?.readOnly).toBe(true);
  expect(schemas['Microsoft.NAV.engChangeNotice-create']?.properties).not.toHaveProperty('bomExists');
  expect(schemas['Microsoft.NAV.engChangeNotice-create']?.properties).not.toHaveProperty('id');
  expect(schemas['Microsoft.NAV.engChangeOrder']?.properties).toHaveProperty(['changeDescription@odata.mediaReadLink']);
  expect(schemas['Microsoft.NAV.engChangeNoticeBOMLine-create']).toBeUndefined();
  expect(schemas['odata.error']?.required).toEqual(['error']);
  expect(doc.components.securitySchemes).toEqual({
    bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    basicAuth: expect.objectContaining({ type: 'http', scheme: 'basic' }),
  });
  expect((doc as unknown as { security: unknown }).security).toEqual([{ bearerAuth: [] }, { basicAuth: [] }]);
  expect(doc.paths['/$metadata']?.['get']).toMatchObject({ security: [] });
});

test('the service’s real responses satisfy the schemas: a page of every set, an entity with $expand, a created one, an error', async () => {
  const check = schemaValidator(doc);
  for (const type of t.service.model.entityTypes) {
    const url = `/${type.entitySet}`;
    const r = await t.call('GET', `${url}?$top=50&$count=true`);
    expect({ url, status: r.status }).toEqual({ url, status: 200 });
    expect({ url, errors: check(`${type.qualifiedName}-collection`, r.json) }).toEqual({ url, errors: [] });
  }
  const ecn = (await t.call('GET', '/engChangeNotices?$top=1&$expand=engChangeNoticeComments,changeReason')).json.value[0];
  expect(check('Microsoft.NAV.engChangeNotice', ecn)).toEqual([]);
  const body = { sourceNumber: 'OAS-1', changeReasonCode: 'COST', sourceType: 'Item' };
  expect(check('Microsoft.NAV.engChangeNotice-create', body)).toEqual([]);
  const created = await t.call('POST', '/engChangeNotices', { body });
  expect(created.status).toBe(201);
  expect(check('Microsoft.NAV.engChangeNotice', created.json)).toEqual([]);
  expect(check('Microsoft.NAV.engChangeNotice-update', { status: 'Approved' })).toEqual([]);
  expect(check('Microsoft.NAV.engChangeNotice-update', { status: 'Bogus' })).not.toEqual([]);
  const error = await t.call('GET', '/engChangeNotices(not-a-guid)');
  expect(check('odata.error', error.json)).toEqual([]);
});

test('a new entity file appears in it without code changes', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-openapi-'));
  fs.cpSync(REPO_METADATA, path.join(dir, 'metadata'), { recursive: true });
  const entity = {
    name: 'engChangeNoticeAttachment', entitySet: 'engChangeNoticeAttachments', scope: 'company', key: 'id',
    permissions: { read: 'ECN-READ', write: 'ECN-WRITE' },
    properties: [
      { name: 'id', type: 'Edm.Guid', nullable: false, writable: 'create', default: { kind: 'guid' } },
      { name: 'engChangeNoticeId', type: 'Edm.Guid', nullable: false, writable: 'create' },
      { name: 'fileName', type: 'Edm.String', maxLength: 120, nullable: false },
    ],
    navigationProperties: [{ name: 'engChangeNotice', target: 'engChangeNotice', collection: false, joins: [{ source: 'engChangeNoticeId', target: 'id' }], onTargetDelete: 'cascade' }],
  };
  fs.writeFileSync(path.join(dir, 'metadata', 'entities', 'engChangeNoticeAttachment.json'), JSON.stringify(entity));
  const n = await startTestService({ metadataDir: path.join(dir, 'metadata') });
  try {
    const d = (await n.call('GET', '/openapi.json', { token: null })).json as Doc;
    expect(d.tags.map((tag) => tag.name)).toContain('engChangeNoticeAttachments');
    expect(d.paths).toHaveProperty(['/companies({companyId})/engChangeNoticeAttachments({id})/engChangeNotice', 'get']);
    expect(d.components.schemas['Microsoft.NAV.engChangeNoticeAttachment-create']).toMatchObject({ required: ['engChangeNoticeId', 'fileName'] });
    expect((await new Validator().validate(structuredClone(d) as unknown as Record<string, unknown>)).valid).toBe(true);
    const created = await n.call('POST', '/engChangeNoticeAttachments', { body: { engChangeNoticeId: (await n.call('GET', '/engChangeNotices?$top=1')).json.value[0].id, fileName: 'a.pdf' } });
    expect(schemaValidator(d)('Microsoft.NAV.engChangeNoticeAttachment', created.json)).toEqual([]);
  } finally {
    await n.close();
  }
});

test('with --protect-metadata it needs credentials like $metadata, and says so', async () => {
  const p = await startTestService({ publicMetadata: false });
  try {
    expect((await p.call('GET', '/openapi.json', { token: null })).status).toBe(401);
    const r = await p.call('GET', '/openapi.json');
    expect(r.status).toBe(200);
    expect(r.json.paths['/$metadata'].get.security).toBeUndefined();
    expect((await p.call('POST', '/openapi.json')).status).toBe(405);
  } finally {
    await p.close();
  }
});
