/**
 * limits.maxBatchWork (batch/batch-work.ts): the reads of a `$batch` are charged, before they run, the
 * work they do evaluated in full (query/read-cost.ts fullWork), against one budget for the whole batch.
 * On the fixture model with the budget at 100,000 row units: a hundred plain pages fit, a hundred
 * nested lambdas over the comments do not.
 */
import { FIXTURE_METADATA } from '../fixtures/model.js';
import { metadataWithLimits } from '../helpers/metadata-copy.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let t: TestService;
let c: string;
beforeAll(async () => {
  t = await startTestService({ metadataDir: metadataWithLimits({ maxBatchWork: 100_000 }, FIXTURE_METADATA) });
  c = t.companyIds[0] as string;
});
afterAll(() => t.close());

const NESTED = "engChangeNoticeComments?$filter=engChangeNotice/engChangeNoticeComments/any(a:a/engChangeNotice/engChangeNoticeComments/any(b:b/comment%20eq%20'zz'))";
const gets = (n: number, url: string): { id: string; method: string; url: string }[] => Array.from({ length: n }, (_, i) => ({ id: `r${i}`, method: 'GET', url: `companies(${c})/${url}` }));
const statuses = (json: unknown): number[] => (json as { responses: { status: number }[] }).responses.map((p) => p.status);
const ecnsNamed = async (drawing: string): Promise<number> => (await t.query('SELECT "id" FROM "engChangeNotices" WHERE "drawingNumber" = ?', [drawing])).length;

test('a hundred small pages fit the budget: the batch runs', async () => {
  const r = await t.call('POST', '/$batch', { body: { requests: gets(100, 'engChangeNotices?$top=1') } });
  expect(r.status).toBe(200);
  expect(statuses(r.json)).toEqual(Array.from({ length: 100 }, () => 200));
});

test('a nested lambda over the comments alone fits; a hundred of them are a 400 naming the setting, before any runs', async () => {
  const one = await t.call('POST', '/$batch', { body: { requests: gets(1, NESTED) } });
  expect(one.status).toBe(200);
  expect(statuses(one.json)).toEqual([200]);
  const r = await t.call('POST', '/$batch', { body: { requests: gets(100, NESTED) } });
  expect(r.status).toBe(400);
  expect(r.json.error).toMatchObject({ code: 'BadRequest' });
  expect(r.json.error.message).toMatch(/^The reads of the batch examine about [\d,.]+ (million )?rows together \(an entity written counts 30\), more than one batch may \(limits\.maxBatchWork in service\.json: 100,000\); send them in several batches/);
});

test('multipart: the same hundred reads are refused alike', async () => {
  const part = (i: number): string => ['--b', 'Content-Type: application/http', `Content-ID: ${i}`, '', `GET companies(${c})/${NESTED} HTTP/1.1`, '', ''].join('\r\n');
  const body = [...Array.from({ length: 100 }, (_, i) => part(i + 1)), '--b--', ''].join('\r\n');
  const r = await t.call('POST', '/$batch', { body, headers: { 'Content-Type': 'multipart/mixed; boundary=b' } });
  expect(r.status).toBe(400);
  expect(r.text).toContain('limits.maxBatchWork in service.json');
});

test('reads after a change set that ran: the change set stays, each of those reads answers the 400', async () => {
  const requests = [{ id: 'w', atomicityGroup: 'g', method: 'POST', url: `companies(${c})/engChangeNotices`, body: { drawingNumber: 'BUDGET-WRITE' } }, ...gets(99, NESTED)];
  const r = await t.call('POST', '/$batch', { body: { requests }, headers: { Prefer: 'odata.continue-on-error' } });
  expect(r.status).toBe(200);
  const responses = (r.json as { responses: { status: number; body?: { error?: { message: string } } }[] }).responses;
  expect(responses.map((p) => p.status)).toEqual([201, ...Array.from({ length: 99 }, () => 400)]);
  expect(responses[1]?.body?.error?.message).toContain('limits.maxBatchWork in service.json');
  expect(await ecnsNamed('BUDGET-WRITE')).toBe(1);
});

test('the budget is the batch\'s: two runs of reads, separated by a write, are charged together', async () => {
  // Thirty nested lambdas fit (a hundred pass the budget more than twice over); the second thirty pass it.
  const requests = [...gets(30, NESTED), { id: 'w', method: 'POST', url: `companies(${c})/engChangeNotices`, body: { drawingNumber: 'BUDGET-BETWEEN' } }, ...gets(30, NESTED).map((g, i) => ({ ...g, id: `s${i}` }))];
  const r = await t.call('POST', '/$batch', { body: { requests }, headers: { Prefer: 'odata.continue-on-error' } });
  expect(r.status).toBe(200);
  const s = statuses(r.json);
  expect(s.slice(0, 31)).toEqual([...Array.from({ length: 30 }, () => 200), 201]);
  expect(s.slice(31)).toEqual(Array.from({ length: 30 }, () => 400));
  expect(await ecnsNamed('BUDGET-BETWEEN')).toBe(1);
});
