/**
 * limits.maxChangeSetEntities (batch/change-set-size.ts): a change set is one transaction, on SQLite one
 * synchronous stretch of the event loop, so what it writes is bounded before anything runs: its requests
 * and the entities nested in their bodies. On the fixture model with the limit at 10.
 */
import { FIXTURE_METADATA } from '../fixtures/model.js';
import { metadataWithLimits } from '../helpers/metadata-copy.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let t: TestService;
let c: string;
beforeAll(async () => {
  t = await startTestService({ metadataDir: metadataWithLimits({ maxChangeSetEntities: 10 }, FIXTURE_METADATA) });
  c = t.companyIds[0] as string;
});
afterAll(() => t.close());

const ecnsNamed = async (drawing: string): Promise<number> => (await t.query('SELECT "id" FROM "engChangeNotices" WHERE "drawingNumber" = ?', [drawing])).length;

function changeSet(ecns: number, commentsEach: number, drawing: string): unknown {
  const comments = Array.from({ length: commentsEach }, (_, i) => ({ comment: `c${i}` }));
  return {
    requests: [
      { id: 'read', method: 'GET', url: `companies(${c})/engChangeNotices?$top=1` },
      ...Array.from({ length: ecns }, (_, i) => ({ id: `e${i}`, atomicityGroup: 'g', method: 'POST', url: `companies(${c})/engChangeNotices`, body: { drawingNumber: drawing, engChangeNoticeComments: comments } })),
    ],
  };
}

test('a change set of 2 ECNs with 4 comments each writes 10 entities: it runs', async () => {
  const r = await t.call('POST', '/$batch', { body: changeSet(2, 4, 'FITS') });
  expect(r.status).toBe(200);
  expect((r.json as { responses: { status: number }[] }).responses.map((p) => p.status)).toEqual([200, 201, 201]);
  expect(await ecnsNamed('FITS')).toBe(2);
});

test('with 5 comments each it writes 12: a 400 naming the setting, and nothing of the batch runs', async () => {
  const r = await t.call('POST', '/$batch', { body: changeSet(2, 5, 'TOO-MANY') });
  expect(r.status).toBe(400);
  expect(r.json.error).toEqual({
    code: 'BadRequest',
    message: "A change set writes at most 10 entities, nested ones included (limits.maxChangeSetEntities in service.json); the change set 'g' writes 12. Split it into several change sets or batches.",
  });
  expect(await ecnsNamed('TOO-MANY')).toBe(0);
});

test('multipart: eleven POSTs in one change set are refused alike', async () => {
  const part = (i: number): string =>
    ['--cs', 'Content-Type: application/http', `Content-ID: ${i}`, '', `POST companies(${c})/engChangeNotices HTTP/1.1`, 'Content-Type: application/json', '', '{"drawingNumber":"MULTI"}'].join('\r\n');
  const body = ['--b', 'Content-Type: multipart/mixed; boundary=cs', '', ...Array.from({ length: 11 }, (_, i) => part(i + 1)), '--cs--', '--b--', ''].join('\r\n');
  const r = await t.call('POST', '/$batch', { body, headers: { 'Content-Type': 'multipart/mixed; boundary=b' } });
  expect(r.status).toBe(400);
  expect(r.text).toContain('limits.maxChangeSetEntities in service.json');
  expect(await ecnsNamed('MULTI')).toBe(0);
});
