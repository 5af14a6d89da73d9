/**
 * IEEE754Compatible=true (OData JSON Format §3.2, conventions §2): Edm.Int64 and Edm.Decimal values and
 * `@odata.count` are JSON strings, whichever writer writes the entities (the database for minimal and
 * none metadata, JavaScript for full), on whole pages, streamed pages and single entities.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { metadataWithLimits } from '../helpers/metadata-copy.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
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

describe('bodies (conventions §2): Edm.Decimal and Edm.Int64 may be sent as strings', () => {
  const SEND = { 'Content-Type': 'application/json;IEEE754Compatible=true', ...IEEE };

  test('a decimal as a string, with IEEE754Compatible=true in Content-Type: stored as the number, answered as a string', async () => {
    const line = (await t.call('GET', '/engChangeNoticeBOMLines?$top=1')).json.value[0];
    const r = await t.call('PATCH', `/engChangeNoticeBOMLines(${line.id})`, { body: { newQuantityPer: '12.34567' }, headers: { ...SEND, 'If-Match': '*' } });
    expect([r.status, r.json.newQuantityPer]).toEqual([200, '12.34567']);
    expect((await t.call('GET', `/engChangeNoticeBOMLines(${line.id})`)).json.newQuantityPer).toBe(12.34567);
    const bad = await t.call('PATCH', `/engChangeNoticeBOMLines(${line.id})`, { body: { newQuantityPer: 'twelve' }, headers: { ...SEND, 'If-Match': '*' } });
    expect([bad.status, bad.json.error.target]).toEqual([400, 'newQuantityPer']);
  });

  test('an Int64 past 2^53 as a string is stored and answered exactly; past 2^63 it is a 400', async () => {
    // A copy of the model with an Edm.Int64 property (the shipped model has none).
    const dir = metadataWithLimits({});
    const file = path.join(dir, 'entities', 'changeReason.json');
    const entity = JSON.parse(fs.readFileSync(file, 'utf8')) as { properties: unknown[] };
    entity.properties.push({ name: 'sortKey', type: 'Edm.Int64' });
    fs.writeFileSync(file, JSON.stringify(entity));
    const s = await startTestService({ metadataDir: dir });
    try {
      const created = await s.call('POST', '/changeReasons', { body: { code: 'BIG', sortKey: '9223372036854775807' }, headers: SEND });
      expect(created.status).toBe(201);
      expect((await s.call('GET', `/changeReasons(${created.json.id})`, { headers: IEEE })).json.sortKey).toBe('9223372036854775807');
      const small = await s.call('POST', '/changeReasons', { body: { code: 'SMALL', sortKey: '-42' }, headers: SEND });
      expect(small.json.sortKey).toBe('-42');
      const over = await s.call('POST', '/changeReasons', { body: { code: 'OVER', sortKey: '9223372036854775808' }, headers: SEND });
      expect([over.status, over.json.error.target]).toEqual([400, 'sortKey']);
    } finally {
      await s.close();
    }
  });
});
