/**
 * The read threads' queue is shared among users (db/sqlite/sqlite-read-pool.ts): one user may have
 * limits.userQueuedReads large reads waiting (here 2); the next one is a 429 at once, while another
 * user's large read still gets into the queue. A lambda over a collection always runs in a thread.
 */
import { metadataWithLimits, tempDbFile } from '../helpers/metadata-copy.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ dbFile: tempDbFile(), metadataDir: metadataWithLimits({ readWorkers: 1, userQueuedReads: 2 }) });
});
afterAll(() => t.close());

const LARGE = "/engChangeNotices?$filter=engChangeNoticeComments/any(c:contains(c/comment,'zz'))&$top=1";

test("a user's third large read waiting for the thread is a 429; another user's is queued", async () => {
  const klee = await t.token('KLEE');
  const jsmith = await t.token('JSMITH');
  // Sent in one turn: the first runs in the thread, two wait, the fourth finds two of KLEE's waiting.
  const reads = [1, 2, 3, 4].map(() => t.call('GET', LARGE, { token: klee }));
  const other = t.call('GET', LARGE, { token: jsmith });
  const statuses = (await Promise.all(reads)).map((r) => r.status);
  expect(statuses.slice(0, 3).every((s) => s === 200 || s === 503)).toBe(true);
  const refused = await reads[3];
  expect(refused?.status).toBe(429);
  expect(refused?.json.error.code).toBe('Application_TooManyRequests');
  expect(refused?.json.error.message).toBe('User KLEE has 2 large reads waiting for a read thread (limits.userQueuedReads in service.json); send fewer at once.');
  expect(Number(refused?.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
  expect([200, 503]).toContain((await other).status);
});
