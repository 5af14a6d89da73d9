/**
 * A cheap read is never queued behind an expensive one: while the nested any() over an ECN's 400
 * comments holds the one read thread, the companies list, a small set read whole and a page answer
 * before it does. A page without $top asks for up to the page size (20,000), but a table of two
 * companies cannot fill it (query/read-cost.ts): such reads stay on the event loop. Order, not time,
 * is the assertion (these machines are shared).
 */
import { startTestService, type TestResponse, type TestService } from '../helpers/test-service.js';
import { tempDbFile } from '../helpers/metadata-copy.js';
import { REPO_METADATA } from '../helpers/test-service.js';

let t: TestService;
let c: string;
let ecn: string;
beforeAll(async () => {
  t = await startTestService({ dbFile: tempDbFile(), metadataDir: REPO_METADATA });
  c = t.companyIds[0] as string;
  ecn = (await t.call('POST', `/companies(${c})/engChangeNotices`, { body: {} })).json.id;
  for (let i = 0; i < 400; i += 100) {
    const requests = Array.from({ length: 100 }, (_, k) => ({ id: String(k), method: 'POST', url: `companies(${c})/engChangeNoticeComments`, body: { engChangeNoticeId: ecn, comment: `c${i + k}` } }));
    expect((await t.call('POST', '/$batch', { body: { requests } })).status).toBe(200);
  }
});
afterAll(() => t.close());

test("the companies list, a whole small set and a page answer while the nested any() holds the read thread", async () => {
  const order: string[] = [];
  const track = (name: string, p: Promise<TestResponse>): Promise<TestResponse> =>
    p.then((r) => {
      order.push(name);
      return r;
    });
  const expensive = track(
    'expensive',
    t.call('GET', `/companies(${c})/engChangeNoticeComments?$select=id&$filter=engChangeNoticeId eq ${ecn} and engChangeNotice/engChangeNoticeComments/any(a1:a1/engChangeNotice/engChangeNoticeComments/any(a2:a2/comment eq 'zz'))`),
  );
  // Let it reach the thread first.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const cheap = await Promise.all([
    track('companies', t.call('GET', '/companies')),
    track('workCenterGroups', t.call('GET', `/companies(${c})/workCenterGroups`)),
    track('page', t.call('GET', `/companies(${c})/engChangeNotices?$top=10&$select=number`)),
  ]);
  expect(cheap.map((r) => r.status)).toEqual([200, 200, 200]);
  expect(order).not.toContain('expensive');
  expect([200, 503]).toContain((await expensive).status);
  expect(order[order.length - 1]).toBe('expensive');
});
