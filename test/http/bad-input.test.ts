/**
 * Bad input gets the status and code of conventions §3, never a 500, and changes nothing.
 */
import { startTestService, type TestService } from '../helpers/test-service.js';

let t: TestService;
let ecn: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let task: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let line: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let commentId: string;
beforeAll(async () => {
  t = await startTestService();
  ecn = (await t.call('GET', '/engChangeNotices?$top=1')).json.value[0];
  task = (await t.call('GET', '/engChangeOrderTasks?$top=1')).json.value[0];
  line = (await t.call('GET', `/engChangeNotices(${ecn.id})/engChangeNoticeBOMLines?$top=1`)).json.value[0];
  commentId = (await t.call('GET', `/engChangeNotices(${ecn.id})/engChangeNoticeComments?$top=1`)).json.value[0].id;
});
afterAll(() => t.close());

const long = (n: number): string => 'x'.repeat(n);
const E = (): string => `/engChangeNotices(${ecn.id})`;
const T = (): string => `/engChangeOrderTasks(${task.id})`;
const star = { 'If-Match': '*' };

interface Case {
  name: string;
  method: string;
  url: () => string;
  body?: unknown;
  headers?: Record<string, string>;
  status: number;
  code: string;
  target?: string;
}

const cases: Case[] = [
  // Body syntax and shape
  { name: 'malformed JSON on POST', method: 'POST', url: () => '/engChangeNotices', body: '{"sourceNumber": ', status: 400, code: 'BadRequest' },
  { name: 'malformed JSON on PATCH', method: 'PATCH', url: E, body: '{bad json}', headers: star, status: 400, code: 'BadRequest' },
  { name: 'JSON array instead of object', method: 'POST', url: () => '/engChangeNotices', body: '[1,2]', status: 400, code: 'BadRequest' },
  { name: 'JSON string instead of object', method: 'POST', url: () => '/engChangeNotices', body: '"x"', status: 400, code: 'BadRequest' },
  { name: 'empty body on POST', method: 'POST', url: () => '/engChangeNotices', body: '', status: 400, code: 'BadRequest' },
  { name: 'text/plain body on POST', method: 'POST', url: () => '/engChangeNotices', body: '{}', headers: { 'Content-Type': 'text/plain' }, status: 415, code: 'BadRequest_UnsupportedMediaType' },
  { name: 'XML body on PATCH', method: 'PATCH', url: E, body: '<x/>', headers: { 'Content-Type': 'application/xml', 'If-Match': '*' }, status: 415, code: 'BadRequest_UnsupportedMediaType' },
  // Unknown and read-only fields
  { name: 'unknown field', method: 'POST', url: () => '/engChangeNotices', body: { sourceNumbr: 'x' }, status: 400, code: 'BadRequest', target: 'sourceNumbr' },
  { name: 'unknown field on PATCH', method: 'PATCH', url: E, body: { colour: 'red' }, headers: star, status: 400, code: 'BadRequest', target: 'colour' },
  { name: 'a key other than the URL\'s on update', method: 'PATCH', url: E, body: { id: '2f0c0a6e-1b2c-4d5e-8f90-0123456789ab' }, headers: star, status: 400, code: 'BadRequest_InvalidOperation', target: 'id' },
  { name: 'JSON nested deeper than maxJsonDepth', method: 'POST', url: () => '/engChangeNotices', body: `{"description":${'['.repeat(5000)}${']'.repeat(5000)}}`, status: 400, code: 'BadRequest' },
  { name: 'JSON objects nested 10,000 deep', method: 'PATCH', url: E, body: `${'{"a":'.repeat(10000)}1${'}'.repeat(10000)}`, headers: star, status: 400, code: 'BadRequest' },
  { name: '$top above maxTop', method: 'GET', url: () => '/engChangeNotices?$top=1000000000', status: 400, code: 'BadRequest_InvalidRequestUrl', target: '$top' },
  { name: '$top above maxTop inside $expand', method: 'GET', url: () => '/engChangeNotices?$top=1&$expand=engChangeNoticeComments($top=2000000)', status: 400, code: 'BadRequest_InvalidRequestUrl' },
  { name: 'any() nested deeper than maxLambdaDepth', method: 'GET', url: () => `/companies(${t.companyIds[0]})/engChangeNoticeComments?$filter=engChangeNotice/engChangeNoticeComments/any(a:a/engChangeNotice/engChangeNoticeComments/any(b:b/engChangeNotice/engChangeNoticeComments/any(c:c/comment eq 'z')))`, status: 400, code: 'BadRequest_InvalidRequestUrl', target: '$filter' },
  { name: 'media field in JSON', method: 'PATCH', url: () => `/engChangeOrders(${task.engChangeOrderId})`, body: { changeDescription: 'x' }, headers: star, status: 400, code: 'BadRequest_InvalidOperation', target: 'changeDescription' },
  // Types, formats, lengths, enums
  { name: 'string for an integer', method: 'POST', url: () => '/engChangeNotices', body: { sourceSequence: 'three' }, status: 400, code: 'Application_FieldValidationException', target: 'sourceSequence' },
  { name: 'fraction for an integer', method: 'PATCH', url: E, body: { sourceSequence: 1.5 }, headers: star, status: 400, code: 'Application_FieldValidationException', target: 'sourceSequence' },
  { name: 'integer out of Int32 range', method: 'PATCH', url: E, body: { sourceSequence: 2 ** 31 }, headers: star, status: 400, code: 'Application_FieldValidationException', target: 'sourceSequence' },
  { name: 'number for a string', method: 'PATCH', url: E, body: { drawingNumber: 42 }, headers: star, status: 400, code: 'Application_FieldValidationException', target: 'drawingNumber' },
  { name: 'over-long string', method: 'PATCH', url: E, body: { drawingNumber: long(31) }, headers: star, status: 400, code: 'Application_FieldValidationException', target: 'drawingNumber' },
  { name: 'over-long number on POST', method: 'POST', url: () => '/engChangeNotices', body: { number: long(21) }, status: 400, code: 'Application_FieldValidationException', target: 'number' },
  { name: 'unknown enum member', method: 'PATCH', url: E, body: { status: 'Done' }, headers: star, status: 400, code: 'Application_FieldValidationException', target: 'status' },
  { name: 'enum member not encoded', method: 'POST', url: () => '/engChangeNotices', body: { sourceType: 'Prod. Order' }, status: 400, code: 'Application_FieldValidationException', target: 'sourceType' },
  { name: 'null for a non-nullable field', method: 'PATCH', url: E, body: { status: null }, headers: star, status: 400, code: 'Application_FieldValidationException', target: 'status' },
  { name: 'bad date', method: 'PATCH', url: E, body: { creationDate: '2024-02-30' }, headers: star, status: 400, code: 'Application_FieldValidationException', target: 'creationDate' },
  { name: 'date with time', method: 'PATCH', url: E, body: { creationDate: '2024-02-01T10:00:00Z' }, headers: star, status: 400, code: 'Application_FieldValidationException', target: 'creationDate' },
  { name: 'bad GUID in body', method: 'POST', url: () => '/engChangeOrderTasks', body: { engChangeOrderId: 'not-a-guid' }, status: 400, code: 'Application_FieldValidationException', target: 'engChangeOrderId' },
  { name: 'boolean as string', method: 'POST', url: () => '/engChangeOrderTasks', body: { engChangeOrderId: true }, status: 400, code: 'Application_FieldValidationException', target: 'engChangeOrderId' },
  { name: 'missing required field', method: 'POST', url: () => '/engChangeOrderTasks', body: { description: 'orphan' }, status: 400, code: 'Application_FieldValidationException', target: 'engChangeOrderId' },
  { name: 'reference to a missing parent', method: 'POST', url: () => '/engChangeOrderTasks', body: { engChangeOrderId: '2f0c0a6e-1b2c-4d5e-8f90-0123456789ab' }, status: 400, code: 'Application_FieldValidationException', target: 'engChangeOrderId' },
  { name: 'unknown change reason code', method: 'PATCH', url: E, body: { changeReasonCode: 'NOPE' }, headers: star, status: 400, code: 'Application_FieldValidationException', target: 'changeReasonCode' },
  { name: 'unknown work center group', method: 'PATCH', url: T, body: { workCenterGroupCode: 'WC-NONE' }, headers: star, status: 400, code: 'Application_FieldValidationException', target: 'workCenterGroupCode' },
  { name: 'duplicate ECN number', method: 'POST', url: () => '/engChangeNotices', body: () => ({ number: ecn.number }), status: 409, code: 'Internal_EntityWithSameKeyExists', target: 'number' },
  { name: 'duplicate alternate key', method: 'POST', url: () => `/engChangeOrders(${task.engChangeOrderId})/engChangeOrderTasks`, body: () => ({ lineNo: task.lineNo }), status: 409, code: 'Internal_EntityWithSameKeyExists', target: 'engChangeOrderId' },
  { name: 'deep insert of a related, not contained, entity', method: 'POST', url: () => '/engChangeNotices', body: { changeReason: { code: 'X' } }, status: 501, code: 'BadRequest_NotImplemented' },
  { name: 'deep insert of children that refuse POST', method: 'POST', url: () => '/engChangeNotices', body: { engChangeNoticeBOMLines: [{ description: 'x' }] }, status: 405, code: 'BadRequest_MethodNotAllowed' },
  { name: 'deep insert that is not an array', method: 'POST', url: () => '/engChangeNotices', body: { engChangeNoticeComments: { comment: 'x' } }, status: 400, code: 'BadRequest', target: 'engChangeNoticeComments' },
  { name: 'deep update', method: 'PATCH', url: E, body: { engChangeNoticeComments: [{ comment: 'x' }] }, headers: { 'If-Match': '*' }, status: 501, code: 'BadRequest_NotImplemented' },
  { name: 'parent mismatch on nested POST', method: 'POST', url: () => `${E()}/engChangeNoticeComments`, body: { engChangeNoticeId: '2f0c0a6e-1b2c-4d5e-8f90-0123456789ab' }, status: 400, code: 'BadRequest_InvalidOperation', target: 'engChangeNoticeId' },
  // Keys and URLs
  { name: 'bad GUID key', method: 'GET', url: () => '/engChangeNotices(123-abc)', status: 400, code: 'BadRequest_InvalidRequestUrl' },
  { name: 'string key for a GUID', method: 'GET', url: () => "/engChangeNotices('abc')", status: 400, code: 'BadRequest_InvalidRequestUrl' },
  { name: 'wrong key name', method: 'GET', url: () => `/engChangeNotices(number=${ecn.id})`, status: 400, code: 'BadRequest_InvalidRequestUrl' },
  { name: 'unbalanced key parenthesis', method: 'GET', url: () => `/engChangeNotices(${ecn.id}`, status: 400, code: 'BadRequest_InvalidRequestUrl' },
  { name: 'key not found', method: 'GET', url: () => '/engChangeNotices(2f0c0a6e-1b2c-4d5e-8f90-0123456789ab)', status: 404, code: 'Internal_RecordNotFound' },
  { name: 'unknown entity set', method: 'GET', url: () => '/engChangeNotes', status: 404, code: 'BadRequest_ResourceNotFound' },
  { name: 'unknown navigation', method: 'GET', url: () => `${E()}/comments`, status: 404, code: 'BadRequest_ResourceNotFound' },
  { name: 'unknown action', method: 'POST', url: () => `${E()}/Microsoft.NAV.approve`, status: 400, code: 'BadRequest_NotFound' },
  { name: 'unknown company (answered as one without a grant, conventions §11)', method: 'GET', url: () => '/companies(2f0c0a6e-1b2c-4d5e-8f90-0123456789ab)/engChangeNotices', status: 403, code: 'Authorization_CompanyAccessDenied' },
  { name: 'unknown company option', method: 'GET', url: () => '/engChangeNotices?company=NOPE', status: 403, code: 'Authorization_CompanyAccessDenied' },
  { name: 'unknown system query option', method: 'GET', url: () => '/engChangeNotices?$filtr=x', status: 400, code: 'BadRequest_InvalidRequestUrl' },
  { name: 'negative $top', method: 'GET', url: () => '/engChangeNotices?$top=-1', status: 400, code: 'BadRequest_InvalidRequestUrl' },
  { name: 'unknown property in $select', method: 'GET', url: () => '/engChangeNotices?$select=nope', status: 400, code: 'BadRequest_NotFound' },
  // Methods
  { name: 'PUT on an entity without If-Match', method: 'PUT', url: E, body: {}, status: 428, code: 'BadRequest_InvalidToken' },
  { name: 'PUT on a collection', method: 'PUT', url: () => '/engChangeNotices', body: {}, status: 405, code: 'BadRequest_MethodNotAllowed' },
  { name: 'PATCH on a collection', method: 'PATCH', url: () => '/engChangeNotices', body: {}, status: 405, code: 'BadRequest_MethodNotAllowed' },
  { name: 'DELETE on a collection', method: 'DELETE', url: () => '/engChangeNotices', status: 405, code: 'BadRequest_MethodNotAllowed' },
  { name: 'GET on an action', method: 'GET', url: () => `${E()}/Microsoft.NAV.createEngChangeOrder`, status: 405, code: 'BadRequest_MethodNotAllowed' },
  { name: 'POST to companies', method: 'POST', url: () => '/companies', body: { name: 'X' }, status: 405, code: 'BadRequest_MethodNotAllowed' },
  { name: 'POST on $metadata', method: 'POST', url: () => '/$metadata', status: 405, code: 'BadRequest_MethodNotAllowed' },
  { name: 'POST on a BOM line collection', method: 'POST', url: () => `${E()}/engChangeNoticeBOMLines`, body: { description: 'x' }, status: 405, code: 'BadRequest_MethodNotAllowed' },
  { name: 'POST on the media field', method: 'POST', url: () => `${T()}/engChangeOrder/changeDescription`, body: 'x', headers: { 'Content-Type': 'text/plain' }, status: 405, code: 'BadRequest_MethodNotAllowed' },
  // Preconditions
  { name: 'PATCH without If-Match', method: 'PATCH', url: E, body: { drawingNumber: 'D' }, status: 428, code: 'BadRequest_InvalidToken' },
  { name: 'PATCH with a stale ETag', method: 'PATCH', url: E, body: { drawingNumber: 'D' }, headers: { 'If-Match': 'W/"MTIz"' }, status: 412, code: 'Request_EntityChanged' },
  { name: 'PATCH with a malformed ETag (not an entity tag)', method: 'PATCH', url: E, body: { drawingNumber: 'D' }, headers: { 'If-Match': 'garbage' }, status: 400, code: 'BadRequest_InvalidToken' },
  { name: 'DELETE with a stale ETag', method: 'DELETE', url: E, headers: { 'If-Match': 'W/"MTIz"' }, status: 412, code: 'Request_EntityChanged' },
  { name: 'task PATCH without If-Match', method: 'PATCH', url: T, body: { processedBy: 'X' }, status: 428, code: 'BadRequest_InvalidToken' },
  { name: 'media PUT without If-Match', method: 'PUT', url: () => `${T()}/engChangeOrder/changeDescription`, body: 'x', headers: { 'Content-Type': 'text/plain' }, status: 428, code: 'BadRequest_InvalidToken' },
  { name: 'media PUT as JSON', method: 'PUT', url: () => `${T()}/engChangeOrder/changeDescription`, body: '"x"', headers: { 'Content-Type': 'application/json', 'If-Match': '*' }, status: 415, code: 'BadRequest_UnsupportedMediaType' },
  { name: 'media PUT over the size limit', method: 'PUT', url: () => `${T()}/engChangeOrder/changeDescription`, body: long(1048577), headers: { 'Content-Type': 'text/plain', 'If-Match': '*' }, status: 413, code: 'BadRequest_PayloadTooLarge' },
  // Negotiation
  { name: 'Accept: application/xml on data', method: 'GET', url: () => '/engChangeNotices', headers: { Accept: 'application/xml' }, status: 406, code: 'BadRequest_NotAcceptable' },
  { name: '$format=xml on data', method: 'GET', url: () => '/engChangeNotices?$format=xml', status: 406, code: 'BadRequest_NotAcceptable' },
  { name: 'unknown odata.metadata level', method: 'GET', url: () => '/engChangeNotices', headers: { Accept: 'application/json;odata.metadata=verbose' }, status: 406, code: 'BadRequest_NotAcceptable' },
  { name: '$metadata as text/html', method: 'GET', url: () => '/$metadata', headers: { Accept: 'text/html' }, status: 406, code: 'BadRequest_NotAcceptable' },
];

test('read-only values and generated keys in a body are ignored, not refused (conventions §2, wave 2)', async () => {
  const etagOf = async (url: string): Promise<string> => (await t.call('GET', url)).json['@odata.etag'];
  const created = await t.call('POST', '/engChangeNotices', { body: { id: '2f0c0a6e-1b2c-4d5e-8f90-0123456789ab', itemNumber: 'I1', bomExists: true, sourceType: 'Item', sourceNumber: ecn.sourceNumber ?? '', changeReasonCode: ecn.changeReasonCode } });
  expect(created.status).toBe(201);
  expect(created.json.id).not.toBe('2f0c0a6e-1b2c-4d5e-8f90-0123456789ab');
  expect(created.json.itemNumber).not.toBe('I1');
  const before = (await t.call('GET', E())).json;
  const patched = await t.call('PATCH', E(), { body: { ...before, changeReasonDescription: 'x', bomExists: !before.bomExists, lastModifiedDateTime: '2001-01-01T00:00:00Z', drawingNumber: 'D-RO' }, headers: { 'If-Match': await etagOf(E()) } });
  expect(patched.status).toBe(200);
  expect([patched.json.changeReasonDescription, patched.json.bomExists, patched.json.drawingNumber]).toEqual([before.changeReasonDescription, before.bomExists, 'D-RO']);
  expect(patched.json.lastModifiedDateTime).not.toBe('2001-01-01T00:00:00Z');
  const taskBefore = (await t.call('GET', T())).json;
  const taskPatched = await t.call('PATCH', T(), { body: { assignedEmail: 'a@b.c' }, headers: star });
  expect([taskPatched.status, taskPatched.json.assignedEmail]).toEqual([200, taskBefore.assignedEmail]);
  const lineUrl = `${E()}/engChangeNoticeBOMLines(${line.id})`;
  const linePatched = await t.call('PATCH', lineUrl, { body: { quantityPer: (line.quantityPer as number) + 7 }, headers: star });
  expect([linePatched.status, linePatched.json.quantityPer]).toEqual([200, line.quantityPer]);
  const other = (await t.call('GET', '/engChangeNotices?$top=1&$skip=1&$select=id')).json.value[0].id;
  const moved = await t.call('PATCH', `/companies(${t.companyIds[0]})/engChangeNoticeComments(${commentId})`, { body: { engChangeNoticeId: other }, headers: star });
  expect([moved.status, moved.json.engChangeNoticeId]).toEqual([200, ecn.id]);
});

test('the table has at least 40 cases', async () => expect(cases.length).toBeGreaterThanOrEqual(40));

async function counts(): Promise<string[]> {
  const out: string[] = [];
  for (const s of ['engChangeNotices', 'engChangeOrderTasks', 'engChangeOrders']) out.push((await t.call('GET', `/${s}/$count`)).text);
  return out;
}

test.each(cases)('$name → $status $code', async (c) => {
  const before = {
    ecn: (await t.call('GET', E())).json,
    task: (await t.call('GET', T())).json,
    counts: await counts(),
  };
  const body = typeof c.body === 'function' ? (c.body as () => unknown)() : c.body;
  const r = (await t.call(c.method, c.url(), { body, headers: c.headers }));
  expect({ status: r.status, code: r.json?.error?.code }).toEqual({ status: c.status, code: c.code });
  expect(typeof r.json.error.message).toBe('string');
  expect(r.json.error.message.length).toBeGreaterThan(10);
  expect(r.text).not.toMatch(/at .+\.(ts|js):\d+/); // no stack trace
  if (c.target !== undefined) expect(r.json.error.target).toBe(c.target);
  if (c.status === 405) expect(r.headers['Allow']).toBeDefined();
  // Nothing changed.
  expect((await t.call('GET', E())).json).toEqual(before.ecn);
  expect((await t.call('GET', T())).json).toEqual(before.task);
  expect(await counts()).toEqual(before.counts);
});
