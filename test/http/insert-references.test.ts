/**
 * A POST's references on both engines: a type without a validateWrite rule has them checked by its
 * INSERT (store/insert-entity.ts prepareInsert), one with such a rule has them looked up before the
 * rule sees the row; either way a reference to no row of the company is the same 400 and writes nothing.
 * On the fixture model, with comments' module (if any) left out or replaced by the test's own: which
 * modules the demo registers, and which demo ECN a rule would let take comments, do not matter here.
 */
import { startTestService, type TestService } from '../helpers/test-service.js';
import { fixtureRulesWithout } from '../fixtures/rules.js';
import { defineHooks } from '../../src/hooks/types.js';

const MISSING = '00000000-0000-0000-0000-000000000000';
const message = (ecn: string): string => `The field engChangeNoticeId of engChangeNoticeComment contains a value (${ecn}) that cannot be found in the related table (engChangeNotice).`;

async function ecnOf(t: TestService, companyId: string): Promise<string> {
  const [ecn] = await t.query('SELECT "id" FROM "engChangeNotices" WHERE "_companyId" = ? ORDER BY "id" LIMIT 1', [companyId]);
  return String(ecn?.['id']);
}

const commentsWith = async (t: TestService, text: string): Promise<number> => (await t.query('SELECT "id" FROM "engChangeNoticeComments" WHERE "comment" = ?', [text])).length;

describe('comments (no validateWrite rule): the INSERT checks the ECN', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ rules: fixtureRulesWithout('engChangeNoticeComment') });
  });
  afterAll(() => t.close());

  test.each([
    ['no ECN', async () => MISSING],
    ["another company's ECN", async () => ecnOf(t, t.companyIds[1] as string)],
  ])('a comment under %s: 400 with the field named, nothing written', async (_name, ecnFor) => {
    const ecn = await ecnFor();
    const text = `orphan ${ecn}`;
    const r = await t.call('POST', `/companies(${t.companyIds[0]})/engChangeNoticeComments`, { body: { engChangeNoticeId: ecn, comment: text } });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: { code: 'Application_FieldValidationException', message: message(ecn), target: 'engChangeNoticeId' } });
    expect(await commentsWith(t, text)).toBe(0);
  });

  test("a comment under its company's ECN is created, and a batch's change set with one bad comment writes none", async () => {
    const ecn = await ecnOf(t, t.companyIds[0] as string);
    const ok = await t.call('POST', `/companies(${t.companyIds[0]})/engChangeNoticeComments`, { body: { engChangeNoticeId: ecn, comment: 'kept' } });
    expect(ok.status).toBe(201);
    expect(ok.json).toMatchObject({ engChangeNoticeId: ecn, comment: 'kept' });
    const requests = [ecn, MISSING].map((id, i) => ({ id: String(i + 1), atomicityGroup: 'g', method: 'POST', url: `companies(${t.companyIds[0]})/engChangeNoticeComments`, headers: { 'content-type': 'application/json' }, body: { engChangeNoticeId: id, comment: 'in a change set' } }));
    const batch = await t.call('POST', '/$batch', { body: { requests } });
    expect(batch.status).toBe(200);
    const statuses = Object.fromEntries((batch.json as { responses: { id: string; status: number }[] }).responses.map((p) => [p.id, p.status]));
    // The bad comment's 400; the good one, undone with its change set, a 424 (Failed Dependency).
    expect(statuses).toEqual({ '1': 424, '2': 400 });
    expect(await commentsWith(t, 'in a change set')).toBe(0);
  });
});

describe('with a validateWrite rule on comments: the ECN is looked up before the rule sees the row', () => {
  let t: TestService;
  const seen: unknown[] = [];
  beforeAll(async () => {
    const watch = defineHooks({
      entityType: 'engChangeNoticeComment',
      validateWrite(ctx) {
        seen.push(ctx.op === 'create' ? ctx.after['engChangeNoticeId'] : undefined);
      },
    });
    t = await startTestService({ rules: [...fixtureRulesWithout('engChangeNoticeComment'), watch] });
  });
  afterAll(() => t.close());

  test('a comment under no ECN: the 400, and the rule never saw it; a good one reaches the rule', async () => {
    const r = await t.call('POST', `/companies(${t.companyIds[0]})/engChangeNoticeComments`, { body: { engChangeNoticeId: MISSING, comment: 'unseen' } });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toBe(message(MISSING));
    expect(seen).toEqual([]);
    const ecn = await ecnOf(t, t.companyIds[0] as string);
    expect((await t.call('POST', `/companies(${t.companyIds[0]})/engChangeNoticeComments`, { body: { engChangeNoticeId: ecn, comment: 'seen' } })).status).toBe(201);
    expect(seen).toEqual([ecn]);
  });
});
