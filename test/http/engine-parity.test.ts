/**
 * Values at the edges of the engines' types get the same answer on SQLite and PostgreSQL (run on both
 * by the jest projects), never a 500: integer arithmetic past Edm.Int32 (SQLite computes in 64 bits,
 * so PostgreSQL must too), literals wider than the property they are compared with, positions past
 * Int32 in substring(), and the NUL character (U+0000), which PostgreSQL's text cannot hold, so no
 * value of the service may contain it on either engine.
 */
import { startTestService, type TestService } from '../helpers/test-service.js';

let t: TestService;
let ecns: { id: string; number: string; sourceSequence: number; status: string }[];
beforeAll(async () => {
  t = await startTestService();
  ecns = (await t.call('GET', '/engChangeNotices?$select=id,number,sourceSequence,status&$orderby=number')).json.value;
});
afterAll(() => t.close());

const numbers = async (filter: string): Promise<string[]> => {
  const r = await t.call('GET', `/engChangeNotices?$select=number&$orderby=number&$filter=${encodeURIComponent(filter)}`);
  expect([filter, r.status]).toEqual([filter, 200]);
  return r.json.value.map((e: { number: string }) => e.number);
};
const where = (keep: (e: (typeof ecns)[number]) => boolean): string[] => ecns.filter(keep).map((e) => e.number);

test('integer arithmetic past Int32 is computed in 64 bits', async () => {
  expect(ecns.length).toBeGreaterThan(3);
  expect(await numbers('sourceSequence add 2147483647 gt 2147483647')).toEqual(where((e) => e.sourceSequence > 0));
  expect(await numbers('sourceSequence mul 2147483647 ge 0')).toEqual(where((e) => e.sourceSequence >= 0));
  expect(await numbers('sourceSequence sub -2147483648 gt 2147483648')).toEqual(where((e) => e.sourceSequence > 0));
  expect(await numbers('-sourceSequence mul 4294967296 lt 0')).toEqual(where((e) => e.sourceSequence > 0));
  const comments = await t.call('GET', `/engChangeNoticeComments?$filter=${encodeURIComponent('lineNo mul 1000000 gt 0')}&$count=true&$top=1`);
  expect(comments.status).toBe(200);
  expect(comments.json['@odata.count']).toBeGreaterThan(0);
});

test('aggregating such products: the sums of 64-bit values', async () => {
  const r = await t.call('GET', `/engChangeNotices?$apply=${encodeURIComponent('groupby((status),aggregate(sourceSequence mul 2147483647 with sum as s))')}`);
  expect(r.status).toBe(200);
  const sums = new Map<string, number>();
  for (const e of ecns) sums.set(e.status, (sums.get(e.status) ?? 0) + e.sourceSequence * 2147483647);
  expect(Object.fromEntries(r.json.value.map((g: { status: string; s: number }) => [g.status, Number(g.s)]))).toEqual(Object.fromEntries(sums));
});

test('decimals beside integers in arithmetic', async () => {
  expect(await numbers('sourceSequence add 0.5 gt 1')).toEqual(where((e) => e.sourceSequence + 0.5 > 1));
  expect(await numbers('sourceSequence mul 2.5 gt 2')).toEqual(where((e) => e.sourceSequence * 2.5 > 2));
  expect(await numbers('-sourceSequence add 0.5 lt 0')).toEqual(where((e) => -e.sourceSequence + 0.5 < 0));
  expect(await numbers('length(number) add 0.5 gt 0')).toEqual(where(() => true));
  expect(await numbers('engChangeNoticeBOMLines/$count add 0.5 gt 0')).toEqual(where(() => true));
});

test('decimal literals in arithmetic are decimals: no integer division, no untyped operands', async () => {
  const all = where(() => true);
  expect(await numbers('sourceSequence div 2.0 eq 3.5')).toEqual(where((e) => e.sourceSequence / 2 === 3.5));
  expect(await numbers('sourceSequence div 4.0 gt 1.5')).toEqual(where((e) => e.sourceSequence / 4 > 1.5));
  expect(await numbers('2.0 add sourceSequence lt 2.5')).toEqual(where((e) => 2 + e.sourceSequence < 2.5));
  expect(await numbers('1.0 div 4 eq 0.25')).toEqual(all);
  expect(await numbers('2.0 div 4 gt 0')).toEqual(all);
  expect(await numbers('0.5 div 0.5 ge 1')).toEqual(all);
  expect(await numbers('2.0 divby -1.5 lt 0')).toEqual(all);
  expect(await numbers('1e1 add 1e0 eq 11')).toEqual(all);
  expect(await numbers('-0.25 mul -1.5 eq 0.375')).toEqual(all);
  expect(await numbers('0.5 sub 0.5 ge 1')).toEqual([]);
  // Decimals are stored and computed as doubles on both engines: 0.1 + 0.2 is not 0.3 on either.
  expect(await numbers('0.1 add 0.2 eq 0.3')).toEqual(0.1 + 0.2 === 0.3 ? all : []);
  expect(await numbers('0.1 mul 3 eq 0.3')).toEqual(0.1 * 3 === 0.3 ? all : []);
  const lines: { quantityPer: number }[] = (await t.call('GET', '/engChangeNoticeBOMLines?$select=quantityPer')).json.value;
  expect(lines.length).toBeGreaterThan(3);
  const count = async (filter: string): Promise<number> => {
    const r = await t.call('GET', `/engChangeNoticeBOMLines?$count=true&$top=0&$filter=${encodeURIComponent(filter)}`);
    expect([filter, r.status]).toEqual([filter, 200]);
    return r.json['@odata.count'];
  };
  const q = lines.map((l) => l.quantityPer);
  expect(await count('quantityPer div 0.5 gt 1')).toBe(q.filter((x) => x / 0.5 > 1).length);
  expect(await count('quantityPer div -0.25 lt -1')).toBe(q.filter((x) => x / -0.25 < -1).length);
  expect(await count('quantityPer divby 0.1 ge 10')).toBe(q.filter((x) => x / 0.1 >= 10).length);
  // mod of decimals is the true remainder of the written decimals on both engines (SQLite's fmod: 7 mod 0.1 was 0.0999...).
  const tenths = (x: number): boolean => /^-?\d+(\.\d)?$/.test(String(x));
  expect(await count('quantityPer mod 0.1 eq 0')).toBe(q.filter(tenths).length);
  expect(await count('quantityPer mod 0.1 ne 0')).toBe(q.filter((x) => !tenths(x)).length);
  const agg = await t.call('GET', `/engChangeNoticeBOMLines?$apply=${encodeURIComponent('aggregate(quantityPer mul 0.5 with sum as s,quantityPer div 0.5 with max as m)')}`);
  expect(agg.status).toBe(200);
  expect(agg.json.value[0].s).toBeCloseTo(q.reduce((a, x) => a + x * 0.5, 0), 6);
  expect(agg.json.value[0].m).toBe(Math.max(...q.map((x) => x / 0.5)));
});

test('literals wider than the Int32 property they are compared with', async () => {
  expect(await numbers('sourceSequence eq 3000000000')).toEqual([]);
  expect(await numbers('sourceSequence lt 3000000000')).toEqual(where(() => true));
  expect(await numbers('sourceSequence eq 99999999999999999999')).toEqual([]);
  expect(await numbers('sourceSequence gt -99999999999999999999')).toEqual(where(() => true));
  expect(await numbers('sourceSequence in (1, 3000000000)')).toEqual(where((e) => e.sourceSequence === 1));
  expect(await numbers('sourceSequence eq 1.5')).toEqual([]);
  const first = ecns[0]?.sourceSequence as number;
  expect(await numbers(`sourceSequence eq ${first}.0`)).toEqual(where((e) => e.sourceSequence === first));
  expect(await numbers('sourceSequence gt 1.5')).toEqual(where((e) => e.sourceSequence > 1.5));
});

test('an Int32 key part past Int32 is the same 400 on both engines', async () => {
  const [task] = (await t.call('GET', '/engChangeOrderTasks?$top=1')).json.value;
  const r = await t.call('GET', `/engChangeOrderTasks(engChangeOrderId=${task.engChangeOrderId},lineNo=99999999999)`);
  expect([r.status, r.json.error.code]).toEqual([400, 'BadRequest_InvalidRequestUrl']);
  expect(r.json.error.message).toMatch(/The literal 99999999999 does not fit property 'lineNo' of type Edm.Int32/);
  expect((await t.call('GET', `/engChangeOrderTasks(engChangeOrderId=${task.engChangeOrderId},lineNo=2147483647)`)).status).toBe(404);
});

test('substring() with positions past Int32', async () => {
  expect(await numbers("substring(number,99999999999) eq ''")).toEqual(where(() => true));
  expect(await numbers("substring(number,0,99999999999) eq number")).toEqual(where(() => true));
});

test('the NUL character: 400 in a URL and in a body, on both engines, and nothing written', async () => {
  for (const url of [`/engChangeNotices?$filter=${encodeURIComponent("number eq '\u0000'")}`, `/engChangeNotices?$filter=contains(number,'%00')`, '/companies?company=a%00b']) {
    const r = await t.call('GET', url);
    expect([url, r.status, r.json?.error?.code]).toEqual([url, 400, 'BadRequest_InvalidRequestUrl']);
    expect(r.json.error.message).toMatch(/NUL/);
  }
  const before = (await t.call('GET', '/engChangeNotices?$count=true&$top=0')).json['@odata.count'];
  const post = await t.call('POST', '/engChangeNotices', { body: { sourceNumber: 'a\u0000b' } });
  expect([post.status, post.json.error.target]).toEqual([400, 'sourceNumber']);
  expect(post.json.error.message).toMatch(/NUL/);
  const comment = await t.call('POST', `/engChangeNotices(${ecns[0]?.id})/engChangeNoticeComments`, { body: { comment: 'x\u0000y' } });
  expect([comment.status, comment.json.error.target]).toEqual([400, 'comment']);
  expect((await t.call('GET', '/engChangeNotices?$count=true&$top=0')).json['@odata.count']).toBe(before);
});

test('an unpaired surrogate in a string value: 400 naming the field on both engines (SQLite stored three replacement characters, PostgreSQL one), nothing written; pairs are fine', async () => {
  const before = (await t.call('GET', '/engChangeNotices?$count=true&$top=0')).json['@odata.count'];
  // JSON escapes: JSON.parse makes them the unpaired surrogates (a JS string literal would reach the body as U+FFFD).
  for (const value of ['a\\ud800b', '\\udfff', 'x\\ud83d']) {
    const raw = `{"drawingNumber":"${value}"}`;
    const post = await t.call('POST', '/engChangeNotices', { body: raw, headers: { 'Content-Type': 'application/json' } });
    expect([raw, post.status, post.json.error.target]).toEqual([raw, 400, 'drawingNumber']);
    expect(post.json.error.message).toMatch(/unpaired surrogate/);
  }
  expect((await t.call('GET', '/engChangeNotices?$count=true&$top=0')).json['@odata.count']).toBe(before);
  const paired = await t.call('POST', '/engChangeNotices', { body: { drawingNumber: 'a\ud83d\ude00b' } });
  expect([paired.status, paired.json.drawingNumber]).toEqual([201, 'a\u{1F600}b']);
});
