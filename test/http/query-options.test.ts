/**
 * Nothing a client sends is silently ignored (conventions §8): system query options without an
 * implementation are 501 BadRequest_NotImplemented naming them, on every resource and method; an
 * unknown `$`-option stays a 400; options the service document and `$metadata` do not take are 400.
 */
import { startTestService, type TestService } from '../helpers/test-service.js';

let t: TestService;
let ecnId: string;
beforeAll(async () => {
  t = await startTestService();
  ecnId = (await t.call('GET', '/engChangeNotices?$top=1')).json.value[0].id;
});
afterAll(() => t.close());

describe.each([
  ['$deltatoken=abc', '$deltatoken'],
  ['$schemaversion=1.0', '$schemaversion'],
  ['$index=2', '$index'],
  ['$id=engChangeNotices(1)', '$id'],
  ['$search=blue', '$search'],
  ['$compute=sourceSequence%20add%201%20as%20s', '$compute'],
])('%s', (option, name) => {
  test.each([
    ['GET', () => `/engChangeNotices?${option}`],
    ['GET', () => `/engChangeNotices(${ecnId})?${option}`],
    ['GET', () => `/engChangeNotices/$count?${option}`],
    ['PATCH', () => `/engChangeNotices(${ecnId})?${option}`],
    ['POST', () => `/engChangeNotices(${ecnId})/Microsoft.NAV.createEngChangeOrder?${option}`],
  ])('%s → 501 naming it, before any change', async (method, url) => {
    const before = (await t.call('GET', `/engChangeNotices(${ecnId})`)).json['@odata.etag'];
    const r = await t.call(method, url(), { body: method === 'PATCH' ? { drawingNumber: 'ignored?' } : undefined, headers: { 'If-Match': '*' } });
    expect(r.status).toBe(501);
    expect(r.json.error.code).toBe('BadRequest_NotImplemented');
    expect(r.json.error.message).toContain(name);
    expect((await t.call('GET', `/engChangeNotices(${ecnId})`)).json['@odata.etag']).toBe(before);
  });
});

test('$levels inside $expand and at the top level → 501 naming it (conventions §8)', async () => {
  const nested = await t.call('GET', '/engChangeNotices?$expand=changeReason($levels=2)');
  expect(nested.status).toBe(501);
  expect(nested.json.error.message).toContain('$levels');
  const top = await t.call('GET', '/engChangeNotices?$levels=2');
  expect([top.status, top.json.error.code]).toEqual([501, 'BadRequest_NotImplemented']);
  expect(top.json.error.message).toContain('$levels');
});

test('an unknown $-option is 400, a custom option is kept', async () => {
  const r = await t.call('GET', '/engChangeNotices?$filtr=x');
  expect(r.status).toBe(400);
  expect(r.json.error.code).toBe('BadRequest_InvalidRequestUrl');
  expect((await t.call('GET', '/engChangeNotices?$top=1&sap-client=100')).status).toBe(200);
});

test.each(['compnay', 'Company', 'companyId', 'compan', 'cmpany'])('a custom option two edits from company (%s) is 400 naming both: it would read the default company', async (name) => {
  const r = await t.call('GET', `/engChangeNotices?${name}=FABRIKAM&$top=1`);
  expect([r.status, r.json.error.code, r.json.error.target]).toEqual([400, 'BadRequest_InvalidRequestUrl', name]);
  expect(r.json.error.message).toContain(`'${name}'`);
  expect(r.json.error.message).toContain("did you mean 'company'");
  // By key (the kept path of a GET by key checks the options too) and on a company-scoped URL alike.
  const id = (await t.call('GET', '/engChangeNotices?$top=1&$select=id')).json.value[0].id;
  expect((await t.call('GET', `/engChangeNotices(${id})?${name}=FABRIKAM`)).status).toBe(400);
});

test('company itself, and custom options further from it, still answer', async () => {
  expect((await t.call('GET', '/engChangeNotices?company=CRONUS&$top=1')).status).toBe(200);
  expect((await t.call('GET', '/engChangeNotices?compartment=1&$top=1')).status).toBe(200);
});

test.each(['/$metadata?$top=1', '/?$filter=x%20eq%201', '/$metadata?$apply=aggregate($count%20as%20n)'])('%s → 400: the documents take $format only', async (url) => {
  const r = await t.call('GET', url);
  expect(r.status).toBe(400);
  expect(r.json.error.message).toContain('only $format');
});

test('$format on the documents still works', async () => {
  expect((await t.call('GET', '/$metadata?$format=json')).status).toBe(200);
  expect((await t.call('GET', '/?$format=json')).status).toBe(200);
});

test('a company named in the path instead of its id: the 400 says which forms work, and the one it shows answers', async () => {
  for (const path of ['/companies(CRONUS)/engChangeNotices', "/companies('CRONUS')/engChangeNotices"]) {
    const r = await t.call('GET', path);
    expect([r.status, r.json.error.code]).toEqual([400, 'BadRequest_InvalidRequestUrl']);
    expect(r.json.error.message).toContain('companies(<id>)');
    expect(r.json.error.message).toContain('/engChangeNotices?company=CRONUS');
  }
  expect((await t.call('GET', '/engChangeNotices?company=CRONUS&$top=1')).status).toBe(200);
  // Other sets' key errors keep their own message.
  expect((await t.call('GET', '/engChangeNotices(CRONUS)')).json.error.message).not.toContain('company=');
});

test('a malformed percent-encoding in a company key is still a 400', async () => {
  const r = await t.call('GET', '/companies(%E0%A4%A)/engChangeNotices');
  expect([r.status, r.json.error.code]).toEqual([400, 'BadRequest_InvalidRequestUrl']);
});
