/**
 * Fair use through the whole pipeline (core/fair-use.ts, core/handle.ts): each user's request window
 * with a `$batch` counted per part, what is not counted, and each user's running places and queue,
 * on a copy of the fixture model with small limits. Another user is never held up.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FairUseSharing } from '../../src/core/fair-use-sharing.js';
import { defineHooks } from '../../src/hooks/types.js';
import { FIXTURE_METADATA } from '../fixtures/model.js';
import type { ServiceLimits } from '../../src/edm/service-limits.js';
import { metadataWithLimits } from '../helpers/metadata-copy.js';
import { createEmptyDatabase, onPostgres, type EmptyDatabase } from '../helpers/postgres.js';
import { startTestService, type TestResponse, type TestService } from '../helpers/test-service.js';

/** The fixture model with other fair-use limits in its service.json. */
const fixtureWithLimits = (limits: Partial<ServiceLimits>): string => metadataWithLimits(limits, FIXTURE_METADATA);

function expectTooMany(r: TestResponse): void {
  expect(r.status).toBe(429);
  expect(r.json.error.code).toBe('Application_TooManyRequests');
  expect(Number(r.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
}

describe('the request window', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ metadataDir: fixtureWithLimits({ userRequestsPer5Min: 6 }) });
  });
  afterAll(() => t.close());

  test("a user's 7th request in 5 minutes is a 429 with Retry-After; the service document and $metadata do not count; others are served", async () => {
    const klee = await t.token('KLEE');
    for (const url of ['/', '/$metadata']) expect((await t.call('GET', url, { token: klee })).status).toBe(200);
    for (let i = 0; i < 6; i++) expect((await t.call('GET', '/engChangeNotices?$top=1', { token: klee })).status).toBe(200);
    const refused = await t.call('GET', '/engChangeNotices?$top=1', { token: klee });
    expectTooMany(refused);
    expect(refused.json.error.message).toMatch(/^User KLEE has sent 6 requests in the last 5 minutes \(limits\.userRequestsPer5Min in service\.json\); try again in \d+ seconds\.$/);
    expect(Number(refused.headers['Retry-After'])).toBeLessThanOrEqual(300);
    expect((await t.call('GET', '/$metadata', { token: klee })).status).toBe(200);
    expect((await t.call('GET', '/engChangeNotices?$top=1')).status).toBe(200); // ADMIN
  });

  test('a $batch counts once per part: the parts past the budget answer 429 inside a 200', async () => {
    const jsmith = await t.token('JSMITH');
    for (let i = 0; i < 3; i++) expect((await t.call('GET', '/engChangeNotices?$top=1', { token: jsmith })).status).toBe(200);
    const requests = [1, 2, 3, 4].map((n) => ({ id: String(n), method: 'GET', url: 'engChangeNotices?$top=1' }));
    const batch = await t.call('POST', '/$batch', { token: jsmith, body: { requests } });
    expect(batch.status).toBe(200);
    const parts = (batch.json as { responses: { id: string; status: number; body: { error?: { code: string } } }[] }).responses;
    expect(parts.map((p) => [p.id, p.status])).toEqual([['1', 200], ['2', 200], ['3', 200], ['4', 429]]);
    expect(parts[3]?.body.error?.code).toBe('Application_TooManyRequests');
  });
});

describe('running places and the queue', () => {
  let t: TestService;
  let open: () => void = () => undefined;
  let gate = Promise.resolve();
  const entered: string[] = [];
  beforeAll(async () => {
    // A comment's beforeWrite waits for the test: its request holds one of its user's running places.
    const held = defineHooks({
      entityType: 'engChangeNoticeComment',
      async beforeWrite(ctx) {
        entered.push(String((ctx.changes as Record<string, unknown>)['comment']));
        await gate;
      },
    });
    t = await startTestService({ metadataDir: fixtureWithLimits({ userConcurrentRequests: 2, userQueuedRequests: 1 }), rules: [held] });
  });
  afterAll(() => t.close());

  test("two of a user's requests run, one waits, the next is refused at once; another user's requests are answered meanwhile", async () => {
    gate = new Promise((resolve) => (open = resolve));
    const jsmith = await t.token('JSMITH');
    const [ecn] = await t.query('SELECT "id" FROM "engChangeNotices" WHERE "_companyId" = ? ORDER BY "id" LIMIT 1', [t.companyIds[0]]);
    const post = (comment: string): Promise<TestResponse> =>
      t.call('POST', `/companies(${t.companyIds[0]})/engChangeNoticeComments`, { token: jsmith, body: { engChangeNoticeId: ecn?.['id'], comment } });
    const running = [post('first'), post('second')];
    const waiting = post('third');
    // Both running ones reach their hook and the third its queue (on PostgreSQL after a few database
    // round trips each: authentication reads there).
    const settled = (): boolean => entered.length >= 2 && t.service.context.fairUse.load('JSMITH').queued === 1;
    for (let i = 0; i < 500 && !settled(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    // Two of the three run (on PostgreSQL not always the first two sent: authentication awaits there).
    expect(entered).toHaveLength(2);
    const waited = ['first', 'second', 'third'].find((name) => !entered.includes(name));
    expect(t.service.context.fairUse.load('JSMITH')).toEqual({ running: 2, queued: 1 });
    const refused = await t.call('GET', '/engChangeNotices?$top=1', { token: jsmith });
    expectTooMany(refused);
    expect(refused.json.error.message).toContain('limits.userConcurrentRequests in service.json');
    expect((await t.call('GET', '/engChangeNotices?$top=1', { token: await t.token('KLEE') })).status).toBe(200);
    open();
    expect((await Promise.all([...running, waiting])).map((r) => r.status)).toEqual([201, 201, 201]);
    expect(entered[2]).toBe(waited); // the one that waited ran last
    expect((await t.call('GET', '/engChangeNotices?$top=1', { token: jsmith })).status).toBe(200);
  });
});

describe('across instances on one database', () => {
  let a: TestService;
  let b: TestService;
  let sharingA: FairUseSharing;
  let sharingB: FairUseSharing;
  let pg: EmptyDatabase | undefined;
  beforeAll(async () => {
    const metadataDir = fixtureWithLimits({ userRequestsPer5Min: 10 });
    pg = onPostgres() ? await createEmptyDatabase('fairuse') : undefined;
    const dbFile = pg?.url ?? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-fair-use-db-')), 'shared.sqlite');
    a = await startTestService({ metadataDir, dbFile });
    b = await startTestService({ metadataDir, dbFile });
    sharingA = new FairUseSharing(a.service.context.fairUse, a.service.engine, a.service.log);
    sharingB = new FairUseSharing(b.service.context.fairUse, b.service.engine, b.service.log);
  });
  afterAll(async () => {
    await sharingA.stop();
    await sharingB.stop();
    await a.close();
    await b.close();
    await pg?.drop();
  });

  test("each instance adds the others' reports to a user's window, and a stopped instance's report leaves it", async () => {
    const [onA, onB] = [await a.token('KLEE'), await b.token('KLEE')];
    for (let i = 0; i < 6; i++) expect((await a.call('GET', '/engChangeNotices?$top=1', { token: onA })).status).toBe(200);
    await sharingA.report();
    await sharingB.report();
    for (let i = 0; i < 4; i++) expect((await b.call('GET', '/engChangeNotices?$top=1', { token: onB })).status).toBe(200);
    expectTooMany(await b.call('GET', '/engChangeNotices?$top=1', { token: onB }));
    await sharingB.report();
    await sharingA.report();
    expectTooMany(await a.call('GET', '/engChangeNotices?$top=1', { token: onA }));
    // A stops: its report is taken back, and B counts its own four.
    await sharingA.stop();
    await sharingB.report();
    expect((await b.call('GET', '/engChangeNotices?$top=1', { token: onB })).status).toBe(200);
  });
});
