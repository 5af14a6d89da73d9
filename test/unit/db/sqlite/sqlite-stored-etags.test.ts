/**
 * Stored ETags: a read copies the ETag a write stored, computes it when the stored one belongs to
 * another version (a writer that did not store it), and start-up stamps such rows.
 */
import { startTestService, type TestService } from '../../../helpers/test-service.js';
import { stampStoredEtags } from '../../../../src/db/sqlite/sqlite-stored-etags.js';
import { formatEtag } from '../../../../src/edm/etag.js';

let t: TestService;
let cronus: string;
beforeEach(async () => {
  t = await startTestService();
  cronus = t.companyIds[0] as string;
});
afterEach(() => t.close());

const row = (id: string): { _version: number; _etag: string | null; _etagOf: number | null } =>
  t.service.db.raw.prepare(`SELECT "_version", "_etag", "_etagOf" FROM "engChangeNotices" WHERE "id" = ?`).get(id) as never;

test('a write stores the ETag of its version; reads at every level and the ETag header agree with it', async () => {
  const list = await t.call('GET', `/companies(${cronus})/engChangeNotices?$top=1&$select=id`);
  const id = list.json.value[0].id as string;
  const patched = await t.call('PATCH', `/companies(${cronus})/engChangeNotices(${id})`, { body: { drawingNumber: 'D-9' }, headers: { 'if-match': '*' } });
  expect(patched.status).toBe(200);
  const stored = row(id);
  expect(stored._etagOf).toBe(stored._version);
  expect(stored._etag).toBe(formatEtag(stored._version));
  const one = await t.call('GET', `/companies(${cronus})/engChangeNotices(${id})`);
  expect(one.json['@odata.etag']).toBe(stored._etag);
  expect(one.headers['ETag']).toBe(stored._etag);
  const page = await t.call('GET', `/companies(${cronus})/engChangeNotices?$filter=id eq ${id}`.replace(/ /g, '%20'));
  expect(page.json.value[0]['@odata.etag']).toBe(stored._etag);
});

test('a version changed by another writer is never answered with the old stored ETag, and start-up restamps it', async () => {
  const list = await t.call('GET', `/companies(${cronus})/engChangeNotices?$top=1&$select=id&$expand=engChangeNoticeComments($select=id)`);
  const id = list.json.value[0].id as string;
  const before = row(id);
  // a writer that knows nothing of _etag (an import, the sqlite3 shell)
  t.service.db.raw.prepare(`UPDATE "engChangeNotices" SET "_version" = "_version" + 1 WHERE "id" = ?`).run(id);
  t.service.db.raw.prepare(`UPDATE "engChangeNoticeComments" SET "_version" = 7 WHERE "engChangeNoticeId" = ?`).run(id);
  const expected = formatEtag(before._version + 1);
  expect(row(id)._etag).not.toBe(expected);
  const one = await t.call('GET', `/companies(${cronus})/engChangeNotices(${id})?$expand=engChangeNoticeComments`);
  expect(one.json['@odata.etag']).toBe(expected);
  expect(one.headers['ETag']).toBe(expected);
  for (const c of one.json.engChangeNoticeComments) expect(c['@odata.etag']).toBe(formatEtag(7));
  // a stale If-Match is refused against the new version
  const stale = await t.call('PATCH', `/companies(${cronus})/engChangeNotices(${id})`, { body: { drawingNumber: 'D-1' }, headers: { 'if-match': before._etag as string } });
  expect(stale.status).toBe(412);
  const stamped = stampStoredEtags(t.service.db, t.service.model);
  expect(stamped['engChangeNotices']).toBe(1);
  expect(stamped['engChangeNoticeComments']).toBeGreaterThan(0);
  expect(row(id)._etag).toBe(expected);
  expect(stampStoredEtags(t.service.db, t.service.model)).toEqual({});
});
