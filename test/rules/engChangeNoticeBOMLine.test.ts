/**
 * BOM lines (service-interface.md, "BOM line rules"): only updates through the interface. The rule is
 * declarative — `capabilities` in metadata/entities/engChangeNoticeBOMLine.json — so there is no hook
 * module; this file proves it on every route: POST and DELETE answer 405 and change nothing, PATCH works
 * with If-Match (428 without, 412 when stale).
 */
import { REPO_METADATA, startTestService, type TestService } from '../helpers/test-service.js';
import { refused, row, type Entity } from './rule-helpers.js';

let t: TestService;
let ecn: Entity;
let line: Entity;
beforeAll(async () => {
  t = await startTestService({ metadataDir: REPO_METADATA });
  ecn = (await t.call('GET', '/engChangeNotices?$top=1')).json.value[0] as Entity;
  line = (await t.call('GET', `/engChangeNotices(${ecn['id']})/engChangeNoticeBOMLines?$top=1`)).json.value[0] as Entity;
});
afterAll(() => t.close());

const scoped = (): string => `/companies(${t.companyIds[0]})`;
const collections = (): [string, string][] => [
  ['nested, unscoped', `/engChangeNotices(${ecn['id']})/engChangeNoticeBOMLines`],
  ['nested, scoped', `${scoped()}/engChangeNotices(${ecn['id']})/engChangeNoticeBOMLines`],
  ['direct, unscoped', '/engChangeNoticeBOMLines'],
  ['direct, scoped', `${scoped()}/engChangeNoticeBOMLines`],
];
const entities = (): [string, string][] => [
  ['nested, unscoped', `/engChangeNotices(${ecn['id']})/engChangeNoticeBOMLines(${line['id']})`],
  ['nested, scoped', `${scoped()}/engChangeNotices(${ecn['id']})/engChangeNoticeBOMLines(${line['id']})`],
  ['direct, unscoped', `/engChangeNoticeBOMLines(${line['id']})`],
  ['direct, scoped', `${scoped()}/engChangeNoticeBOMLines(${line['id']})`],
];

test('POST on every BOM line collection route → 405 with Allow: GET; no line is created', async () => {
  for (const [, url] of collections()) {
    const r = await refused(t, () => t.call('POST', url, { body: { engChangeNoticeId: ecn['id'], description: 'new line' } }), 405, 'BadRequest_MethodNotAllowed', 'cannot be created');
    expect(r.headers['Allow']).toBe('GET');
  }
});

test('DELETE on every BOM line route → 405 with Allow: GET, PATCH, PUT; the line stays', async () => {
  for (const [, url] of entities()) {
    const r = await refused(t, () => t.call('DELETE', url), 405, 'BadRequest_MethodNotAllowed', 'cannot be deleted');
    expect(r.headers['Allow']).toBe('GET, PATCH, PUT');
    expect((await t.call('GET', url)).status).toBe(200);
  }
});

test('the direct set also answers unscoped (conventions §1), with an unscoped context URL', async () => {
  const read = await t.call('GET', `/engChangeNoticeBOMLines(${line['id']})`);
  expect(read.status).toBe(200);
  expect(read.json['@odata.context']).toBe(`${t.root}/$metadata#engChangeNoticeBOMLines/$entity`);
});

test('PATCH with If-Match works on every entity route', async () => {
  let etag = String(line['@odata.etag']);
  for (const [name, url] of entities()) {
    const r = await t.call('PATCH', url, { body: { newQuantityPer: 2.5, newItemNumber: `NEW-${name.length}` }, headers: { 'If-Match': etag } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: line['id'], newQuantityPer: 2.5, newItemNumber: `NEW-${name.length}` });
    expect(r.json['@odata.etag']).not.toBe(etag);
    etag = r.json['@odata.etag'];
  }
  expect((await row(t, 'engChangeNoticeBOMLines', line['id']))?.['newItemNumber']).toBe(`NEW-${'direct, scoped'.length}`);
});

test('PATCH without If-Match → 428, with a stale one → 412; nothing changes', async () => {
  const stale = String(line['@odata.etag']);
  for (const [, url] of entities()) {
    await refused(t, () => t.call('PATCH', url, { body: { description: 'x' } }), 428, 'BadRequest_InvalidToken', 'If-Match');
    await refused(t, () => t.call('PATCH', url, { body: { description: 'x' }, headers: { 'If-Match': stale } }), 412, 'Request_EntityChanged', 'Another user has already changed the record.');
  }
});

test('fields the service owns stay as they are on PATCH: the value sent is ignored (conventions §2, wave 2)', async () => {
  const url = entities()[0]?.[1] ?? '';
  const before = (await row(t, 'engChangeNoticeBOMLines', String(line['id'])))?.['quantityPer'];
  const r = await t.call('PATCH', url, { body: { quantityPer: 9 }, headers: { 'If-Match': '*' } });
  expect(r.status).toBe(200);
  expect((await row(t, 'engChangeNoticeBOMLines', String(line['id'])))?.['quantityPer']).toBe(before);
});
