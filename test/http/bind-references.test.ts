/**
 * `<navigation>@odata.bind` in bodies (OData 4.01 JSON Format §8.5): a single-valued navigation bound
 * by URL sets its reference fields; in a batch the URL may be `$<Content-ID>` of an entity created
 * earlier in the same change set (OData 4.01 Part 1 §11.7.3.1).
 */
import { startTestService, type TestService } from '../helpers/test-service.js';
import { changeSet, httpPart, multipart, readMultipart } from '../helpers/batch-bodies.js';

let t: TestService;
let ecnId: string;
beforeAll(async () => {
  t = await startTestService();
  ecnId = (await t.call('GET', '/engChangeNotices?$top=1&$select=id')).json.value[0].id;
});
afterAll(() => t.close());

test.each([
  ['relative to the service root', () => `engChangeNotices(${ecnId})`],
  ['absolute', () => `${t.root}/engChangeNotices(${ecnId})`],
  ['through the company', () => `companies(${t.companyIds[0]})/engChangeNotices(${ecnId})`],
])('a comment bound to its ECN by a URL %s', async (_, url) => {
  const r = await t.call('POST', '/engChangeNoticeComments', { body: { comment: 'bound', 'engChangeNotice@odata.bind': url() } });
  expect([r.status, r.json.engChangeNoticeId]).toEqual([201, ecnId]);
});

test.each([
  ['a URL of another type', () => ({ 'engChangeNotice@odata.bind': 'engChangeOrders(2f0c0a6e-1b2c-4d5e-8f90-0123456789ab)' }), 400, 'engChangeNotice@odata.bind'],
  ['a collection URL', () => ({ 'engChangeNotice@odata.bind': 'engChangeNotices' }), 400, 'engChangeNotice@odata.bind'],
  ['not a string', () => ({ 'engChangeNotice@odata.bind': 7 }), 400, 'engChangeNotice@odata.bind'],
  ['a URL of another service', () => ({ 'engChangeNotice@odata.bind': `http://elsewhere.example/api/v2.0/engChangeNotices(${ecnId})` }), 400, 'engChangeNotice@odata.bind'],
  ['a field sent too, with another value', () => ({ engChangeNoticeId: '2f0c0a6e-1b2c-4d5e-8f90-0123456789ab', 'engChangeNotice@odata.bind': `engChangeNotices(${ecnId})` }), 400, 'engChangeNoticeId'],
  ['an entity that does not exist', () => ({ 'engChangeNotice@odata.bind': 'engChangeNotices(2f0c0a6e-1b2c-4d5e-8f90-0123456789ab)' }), 400, 'engChangeNoticeId'],
])('binding to %s is refused', async (_, body, status, target) => {
  const r = await t.call('POST', '/engChangeNoticeComments', { body: { comment: 'x', ...body() } });
  expect([r.status, r.json.error.target]).toEqual([status, target]);
});

test('a collection-valued navigation cannot be bound: 501', async () => {
  const r = await t.call('POST', '/engChangeNotices', { body: { sourceType: 'Item', 'engChangeNoticeComments@odata.bind': [] } });
  expect([r.status, r.json.error.code]).toEqual([501, 'BadRequest_NotImplemented']);
});

test('in a change set, a body binds to $1: the entity created by the first part', async () => {
  const r = await t.call('POST', '/$batch', {
    body: multipart('b', [
      changeSet('c', [
        httpPart('POST engChangeNotices', { body: { sourceType: 'Item', sourceNumber: 'ITM-1000' }, mime: { 'Content-ID': '1' } }),
        httpPart('POST engChangeNoticeComments', { body: { comment: 'bound', 'engChangeNotice@odata.bind': '$1' }, mime: { 'Content-ID': '2' } }),
      ]),
    ]),
    headers: { 'Content-Type': 'multipart/mixed; boundary=b' },
  });
  const [set] = readMultipart(r.headers['Content-Type'] as string, r.text);
  const [ecn, comment] = (set?.parts ?? []).map((p) => JSON.parse(p.body));
  expect(comment.engChangeNoticeId).toBe(ecn.id);
});

test('in a JSON batch, a binding to an unknown id is a 400 before anything runs', async () => {
  const r = await t.call('POST', '/$batch', { body: { requests: [{ id: 'a', method: 'post', url: 'engChangeNoticeComments', body: { comment: 'x', 'engChangeNotice@odata.bind': '$zz' } }] } });
  expect([r.status, r.json.error.message]).toEqual([400, expect.stringMatching(/binds to \$zz/)]);
});
