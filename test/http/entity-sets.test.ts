/**
 * Conventions §1 (wave 2): every entity set of the container is listed in the service document and
 * answers without a company prefix, the contained sets (comments, BOM lines) included, as clients that
 * build their set list from `$metadata` (odata2ts, the SAP Cloud SDK, Power Query) expect.
 */
import { startTestService, type TestService } from '../helpers/test-service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

function containerSets(csdl: Record<string, unknown>): string[] {
  const [qualified = ''] = String(csdl['$EntityContainer']).split(/\.(?=[^.]+$)/);
  const container = String(csdl['$EntityContainer']).slice(qualified.length + 1);
  const schema = csdl[qualified] as Record<string, Record<string, unknown>>;
  return Object.keys(schema[container] ?? {}).filter((k) => !k.startsWith('$') && !k.startsWith('@'));
}

test('the service document lists every entity set the container declares', async () => {
  const sets = containerSets((await t.call('GET', '/$metadata?$format=json')).json);
  expect(sets).toContain('engChangeNoticeComments');
  expect(sets).toContain('engChangeNoticeBOMLines');
  const doc = await t.call('GET', '/');
  expect(doc.json.value.map((v: { name: string }) => v.name).sort()).toEqual([...sets].sort());
  for (const entry of doc.json.value) expect(entry).toEqual({ name: entry.name, kind: 'EntitySet', url: entry.name });
});

test('every listed set answers GET unscoped, on the default company', async () => {
  const doc = await t.call('GET', '/');
  for (const { url } of doc.json.value as { url: string }[]) {
    const r = await t.call('GET', `/${url}?$top=1`);
    expect([url, r.status]).toEqual([url, 200]);
    expect(r.json['@odata.context']).toBe(`${t.root}/$metadata#${url}`);
  }
});

test('the unscoped comment set shows the default company’s rows only, and writes go there', async () => {
  const [cronus, other] = t.companyIds as [string, string];
  const scoped = (company: string): Promise<number> => t.call('GET', `/companies(${company})/engChangeNoticeComments/$count`).then((r) => Number(r.text));
  const unscoped = Number((await t.call('GET', '/engChangeNoticeComments/$count')).text);
  const counts = [await scoped(cronus), await scoped(other)];
  expect(counts).toContain(unscoped);
  const ecn = (await t.call('GET', '/engChangeNotices?$top=1')).json.value[0];
  const created = await t.call('POST', '/engChangeNoticeComments', { body: { engChangeNoticeId: ecn.id, comment: 'unscoped' } });
  expect(created.status).toBe(201);
  expect(created.json['@odata.context']).toBe(`${t.root}/$metadata#engChangeNoticeComments/$entity`);
  expect((await t.call('GET', `/engChangeNoticeComments(${created.json.id})`)).json.comment).toBe('unscoped');
});
