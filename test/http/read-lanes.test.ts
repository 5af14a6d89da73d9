/**
 * A read answers the same whether it runs on the event loop or in a read thread (db/sqlite/sqlite-read-executor.ts):
 * two services on one database file, one running every read on the event loop (readWorkers 0), the
 * other sending every read to a thread (maxInlineRows 0), compared byte for byte.
 */
import { startTestService, type TestService } from '../helpers/test-service.js';
import { metadataWithLimits, tempDbFile } from '../helpers/metadata-copy.js';

let inline: TestService;
let threaded: TestService;
let ecn: string;
let c: string;
beforeAll(async () => {
  const file = tempDbFile();
  inline = await startTestService({ dbFile: file, metadataDir: metadataWithLimits({ readWorkers: 0 }) });
  threaded = await startTestService({ dbFile: file, seed: false, metadataDir: metadataWithLimits({ maxInlineRows: 0, pageSize: 7 }) });
  c = inline.companyIds[0] as string;
  ecn = (await inline.call('GET', '/engChangeNotices?$top=1&$select=id')).json.value[0].id;
});
afterAll(async () => {
  await inline.close();
  await threaded.close();
});

const urls = (): string[] => [
  '/engChangeNotices?$top=5',
  `/engChangeNotices(${ecn})`,
  `/engChangeNotices(${ecn})?$expand=engChangeNoticeComments,engChangeNoticeBOMLines`,
  "/engChangeNotices?$filter=contains(number,'0')&$orderby=number desc&$select=number,status&$count=true&$top=4",
  '/engChangeNotices?$expand=engChangeNoticeComments($top=2;$orderby=lineNo desc;$count=true)&$top=3',
  `/companies(${c})/engChangeNoticeComments?$filter=engChangeNotice/engChangeNoticeBOMLines/any(l:l/quantityPer gt 1)&$top=5`,
  '/engChangeNotices/$count',
  "/engChangeNotices/$count?$filter=status eq 'Approved'",
  '/engChangeOrders?$expand=engChangeOrderTasks($expand=predecessors)&$top=3',
  '/engChangeNotices?$top=3',
  // Aggregated reads ($apply) go through the same executor.
  '/engChangeNotices?$apply=groupby((status),aggregate($count as n))&$count=true',
  '/engChangeNoticeBOMLines?$apply=groupby((engChangeNotice/status),aggregate(quantityPer with sum as total))&$orderby=total desc',
  "/engChangeNotices/$count?$apply=filter(engChangeNoticeBOMLines/any(l:l/quantityPer gt 1))/groupby((status))",
  '/engChangeNotices?$apply=groupby((changeReasonCode),aggregate(sourceSequence with sum as total))/concat(aggregate($count as groups),top(3))',
];

test.each(urls().map((u, i) => [i]))('read %i answers alike on the event loop and in a thread', async (i) => {
  const url = urls()[i] as string;
  const a = await inline.call('GET', url);
  const b = await threaded.call('GET', url);
  expect(b.status).toBe(a.status);
  expect(b.text).toBe(a.text);
});

test('metadata=full (the JavaScript writer) answers alike', async () => {
  const headers = { Accept: 'application/json;odata.metadata=full' };
  const a = await inline.call('GET', '/engChangeNotices?$top=3&$expand=engChangeNoticeComments', { headers });
  const b = await threaded.call('GET', '/engChangeNotices?$top=3&$expand=engChangeNoticeComments', { headers });
  expect(b.text).toBe(a.text);
});

test('server-driven pages from a thread follow on to the end, every row once', async () => {
  const ids: string[] = [];
  for (let url: string | undefined = '/engChangeNotices?$select=id'; url !== undefined; ) {
    const r = await threaded.call('GET', url);
    expect(r.status).toBe(200);
    ids.push(...r.json.value.map((e: { id: string }) => e.id));
    url = (r.json['@odata.nextLink'] as string | undefined)?.slice(threaded.root.length);
  }
  const all = (await inline.call('GET', '/engChangeNotices?$select=id')).json.value.map((e: { id: string }) => e.id);
  expect(ids).toEqual(all);
});

test('the threaded service did use its thread, the other none', () => {
  const pool = (s: TestService): { started: number } | undefined => (s.service.context.engine.reads as unknown as { pool?: { started: number } }).pool;
  expect(pool(threaded)?.started).toBe(1);
  expect(pool(inline)).toBeUndefined();
});
