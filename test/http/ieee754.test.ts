/**
 * IEEE754Compatible=true (OData JSON Format §3.2, conventions §2): Edm.Int64 and Edm.Decimal values and
 * `@odata.count` are JSON strings, whichever writer writes the entities (the database for minimal and
 * none metadata, JavaScript for full), on whole pages, streamed pages and single entities.
 */
import { startTestService, type TestService } from '../helpers/test-service.js';

let t: TestService;
beforeAll(() => {
  t = startTestService();
});
afterAll(() => t.close());

const IEEE = { Accept: 'application/json;odata.metadata=minimal;IEEE754Compatible=true' };

test.each([
  ['a page no next page follows', '/engChangeNoticeBOMLines?$count=true&$top=5'],
  ['a streamed page', '/engChangeNoticeBOMLines?$count=true'],
  ['full metadata (the JavaScript writer)', '/engChangeNoticeBOMLines?$count=true&$top=5&$format=application/json;odata.metadata=full;IEEE754Compatible=true'],
])('%s: @odata.count and decimals are strings', async (_, url) => {
  const r = await t.call('GET', url, { headers: IEEE });
  expect(r.status).toBe(200);
  expect(r.headers['Content-Type']).toContain('IEEE754Compatible=true');
  expect(typeof r.json['@odata.count']).toBe('string');
  expect(r.json['@odata.count']).toMatch(/^\d+$/);
  expect(r.json.value.length).toBeGreaterThan(0);
  for (const line of r.json.value) {
    expect(typeof line.quantityPer).toBe('string');
    expect(Number(line.quantityPer)).not.toBeNaN();
    expect(typeof line.lineNo).toBe('number'); // Edm.Int32 stays a number
  }
});

test('the same values as numbers without the parameter', async () => {
  const plain = await t.call('GET', '/engChangeNoticeBOMLines?$count=true&$top=5');
  const ieee = await t.call('GET', '/engChangeNoticeBOMLines?$count=true&$top=5', { headers: IEEE });
  expect(plain.json['@odata.count']).toBe(Number(ieee.json['@odata.count']));
  expect(plain.json.value.map((l: { quantityPer: number }) => String(l.quantityPer))).toEqual(ieee.json.value.map((l: { quantityPer: string }) => l.quantityPer));
});

test('a single entity and a nested $count=true', async () => {
  const ecn = (await t.call('GET', '/engChangeNotices?$top=1')).json.value[0];
  const r = await t.call('GET', `/engChangeNotices(${ecn.id})?$expand=engChangeNoticeBOMLines($count=true)`, { headers: IEEE });
  expect(r.status).toBe(200);
  expect(typeof r.json['engChangeNoticeBOMLines@odata.count']).toBe('string');
  for (const line of r.json.engChangeNoticeBOMLines) expect(typeof line.quantityPer).toBe('string');
  const single = await t.call('GET', `/engChangeNoticeBOMLines(${r.json.engChangeNoticeBOMLines[0].id})/quantityPer`, { headers: IEEE });
  expect(typeof single.json.value).toBe('string');
});
