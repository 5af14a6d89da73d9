/**
 * `$apply` over HTTP (Data Aggregation Extension 4.0, conventions §8): the requests, grouping
 * through navigation paths, aggregates checked against an oracle computed here from plain reads, the
 * options after `$apply`, server-driven paging of groups, context URLs, company and row restrictions,
 * permissions on grouping paths, IEEE754Compatible, and 501/400 for what is not supported.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_METADATA, startTestService, type TestService } from '../helpers/test-service.js';

let t: TestService;
let ecns: Record<string, unknown>[];
let lines: Record<string, unknown>[];
beforeAll(async () => {
  t = await startTestService();
  ecns = (await t.call('GET', '/engChangeNotices?$top=20000')).json.value;
  lines = (await t.call('GET', '/engChangeNoticeBOMLines?$top=20000')).json.value;
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.call('GET', url, { headers });
const q = (s: string): string => s.replace(/ /g, '%20').replace(/'/g, '%27');

/** Counts of `rows` by `key`, as an object sorted by key. */
function countBy<T>(rows: readonly T[], key: (r: T) => unknown): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rows) out[String(key(r))] = (out[String(key(r))] ?? 0) + 1;
  return out;
}
const byKey = (value: { status: string; n: number }[]): Record<string, number> => Object.fromEntries(value.map((v) => [v.status, v.n]));

describe('the requests of the issue', () => {
  test('groupby((status))&$skip=0&$top=50 answers the distinct statuses, not whole ECNs', async () => {
    const r = await get('/engChangeNotices?$apply=groupby((status))&$skip=0&$top=50');
    expect(r.status).toBe(200);
    expect(r.json['@odata.context']).toBe(`${t.root}/$metadata#engChangeNotices(status)`);
    expect(r.json.value).toEqual(Object.keys(countBy(ecns, (e) => e['status'])).sort().map((status) => ({ status })));
    expect(r.json['@odata.nextLink']).toBeUndefined();
  });

  test('groupby((status),aggregate($count as n)) counts per status, computed over every row of the company', async () => {
    const r = await get(`/engChangeNotices?$apply=${q('groupby((status),aggregate($count as n))')}`);
    expect(r.status).toBe(200);
    expect(r.json['@odata.context']).toBe(`${t.root}/$metadata#engChangeNotices(status,n)`);
    expect(byKey(r.json.value)).toEqual(countBy(ecns, (e) => e['status']));
    for (const v of r.json.value) expect(Object.keys(v)).toEqual(['status', 'n']); // transient: no @odata.etag, no id
  });
});

describe('company scoping', () => {
  test('a company-scoped URL counts that company only, with its prefix in the context URL', async () => {
    const [cronus, fabrikam] = t.companyIds as [string, string];
    const scoped = async (company: string) => t.call('GET', `/companies(${company})/engChangeNotices?$apply=${q('aggregate($count as n)')}`);
    const a = await scoped(cronus);
    const b = await scoped(fabrikam);
    expect(a.json['@odata.context']).toBe(`${t.root}/$metadata#companies(${cronus})/engChangeNotices(n)`);
    const all = Number((await t.call('GET', `/companies(${cronus})/engChangeNotices/$count`)).text) + Number((await t.call('GET', `/companies(${fabrikam})/engChangeNotices/$count`)).text);
    expect(a.json.value[0].n + b.json.value[0].n).toBe(all);
    expect([a.json.value[0].n, b.json.value[0].n]).toContain(ecns.length);
  });

  test('the companies list aggregates only the companies the caller has a grant in', async () => {
    const r = await t.call('GET', `/companies?$apply=${q('aggregate($count as n)')}`, { token: await t.token('KLEE') });
    expect(r.status).toBe(200);
    expect(r.json.value).toEqual([{ n: 1 }]);
  });
});

describe('navigation paths, decimals, enums and nulls', () => {
  test('BOM lines grouped by their ECN status and type: sum of a decimal, $count, max', async () => {
    const statusOf = new Map(ecns.map((e) => [e['id'], e['status']]));
    const r = await get(`/engChangeNoticeBOMLines?$apply=${q('groupby((engChangeNotice/status,type),aggregate(quantityPer with sum as total,$count as n,quantityPer with max as largest))')}`);
    expect(r.status).toBe(200);
    expect(r.json['@odata.context']).toBe(`${t.root}/$metadata#engChangeNoticeBOMLines(engChangeNotice(status),type,total,n,largest)`);
    const expected = new Map<string, { total: number; n: number; largest: number }>();
    for (const l of lines) {
      const k = `${String(statusOf.get(l['engChangeNoticeId']))}|${String(l['type'])}`;
      const e = expected.get(k) ?? { total: 0, n: 0, largest: -Infinity };
      expected.set(k, { total: e.total + Number(l['quantityPer']), n: e.n + 1, largest: Math.max(e.largest, Number(l['quantityPer'])) });
    }
    expect(r.json.value).toHaveLength(expected.size);
    for (const v of r.json.value) {
      const e = expected.get(`${v.engChangeNotice.status}|${v.type}`);
      expect(e).toBeDefined();
      expect(v.n).toBe(e?.n);
      expect(v.total).toBeCloseTo(e?.total ?? NaN, 9);
      expect(v.largest).toBe(e?.largest);
    }
  });

  test('a null grouping value is a group of its own; countdistinct ignores nulls', async () => {
    const r = await get(`/engChangeNotices?$apply=${q('groupby((drawingNumber),aggregate($count as n))')}&$top=20000`);
    expect(r.status).toBe(200);
    expect(Object.fromEntries(r.json.value.map((v: { drawingNumber: string | null; n: number }) => [String(v.drawingNumber), v.n]))).toEqual(countBy(ecns, (e) => e['drawingNumber']));
    const d = await get(`/engChangeNotices?$apply=${q('aggregate(drawingNumber with countdistinct as distinct)')}`);
    expect(d.json.value[0].distinct).toBe(new Set(ecns.map((e) => e['drawingNumber']).filter((v) => v !== null)).size);
  });

  test('grouping by a computed property, alone and beside a stored one (PostgreSQL answered 500: the GROUP BY names it by position)', async () => {
    const tasks: Record<string, unknown>[] = (await get('/engChangeOrderTasks?$select=status,assignedEmail&$top=20000')).json.value;
    expect(new Set(tasks.map((x) => x['assignedEmail'])).size).toBeGreaterThan(1);
    const one = await get(`/engChangeOrderTasks?$apply=${q('groupby((assignedEmail),aggregate($count as n))')}&$top=20000`);
    expect(one.status).toBe(200);
    expect(Object.fromEntries(one.json.value.map((v: { assignedEmail: string; n: number }) => [v.assignedEmail, v.n]))).toEqual(countBy(tasks, (x) => x['assignedEmail']));
    const two = await get(`/engChangeOrderTasks?$apply=${q('groupby((status,assignedEmail),aggregate($count as n))/orderby(n desc)')}&$top=20000`);
    expect(two.status).toBe(200);
    expect(Object.fromEntries(two.json.value.map((v: { status: string; assignedEmail: string; n: number }) => [`${v.status}|${v.assignedEmail}`, v.n]))).toEqual(countBy(tasks, (x) => `${String(x['status'])}|${String(x['assignedEmail'])}`));
    const ecnReasons = await get(`/engChangeNotices?$apply=${q('groupby((changeReasonDescription),aggregate($count as n))')}&$top=20000`);
    expect(Object.fromEntries(ecnReasons.json.value.map((v: { changeReasonDescription: string | null; n: number }) => [String(v.changeReasonDescription), v.n]))).toEqual(countBy(ecns, (e) => e['changeReasonDescription']));
  });

  test('aggregate alone: one instance with average, min, max of the whole set', async () => {
    const seq = ecns.map((e) => Number(e['sourceSequence']));
    const r = await get(`/engChangeNotices?$apply=${q('aggregate(sourceSequence with average as avg,sourceSequence with min as lo,sourceSequence with max as hi,creationDate with max as latest,$count as n)')}`);
    expect(r.json.value).toHaveLength(1);
    const [v] = r.json.value;
    expect(v.avg).toBeCloseTo(seq.reduce((a, b) => a + b, 0) / seq.length, 9);
    expect([v.lo, v.hi, v.n]).toEqual([Math.min(...seq), Math.max(...seq), ecns.length]);
    expect(v.latest).toBe(ecns.map((e) => String(e['creationDate'])).sort().at(-1));
  });

  test('an enum compared by its member name in filter(...) and ordered by its value in $orderby', async () => {
    const r = await get(`/engChangeNotices?$apply=${q("filter(status ne 'Closed')/groupby((status),aggregate($count as n))")}&$orderby=status%20desc`);
    expect(r.status).toBe(200);
    const order = ['New', 'Pending_x0020_Approval', 'Approved', 'Rejected', 'Closed'];
    const expected = order.filter((s) => s !== 'Closed' && ecns.some((e) => e['status'] === s)).reverse();
    expect(r.json.value.map((v: { status: string }) => v.status)).toEqual(expected);
  });
});

describe('options on the aggregated result', () => {
  test('$filter, $orderby, $top, $skip and $count apply to the groups', async () => {
    const counts = countBy(ecns, (e) => e['status']);
    const url = `/engChangeNotices?$apply=${q('groupby((status),aggregate($count as n))')}&$filter=${q('n ge 1')}&$orderby=${q('n desc,status')}&$skip=1&$top=2&$count=true`;
    const r = await get(url);
    expect(r.status).toBe(200);
    const value = (s: string): number => ['New', 'Pending_x0020_Approval', 'Approved', 'Rejected', 'Closed'].indexOf(s); // enums sort by member value
    const sorted = Object.entries(counts).sort(([a, x], [b, y]) => y - x || value(a) - value(b));
    expect(r.json['@odata.count']).toBe(sorted.length);
    expect(r.json.value.map((v: { status: string; n: number }) => [v.status, v.n])).toEqual(sorted.slice(1, 3));
  });

  test('a filter transformation after groupby restricts the groups; /$count counts them', async () => {
    const counts = countBy(ecns, (e) => e['status']);
    const many = Object.entries(counts).filter(([, n]) => n > 2).map(([s]) => s).sort();
    const r = await get(`/engChangeNotices?$apply=${q('groupby((status),aggregate($count as n))/filter(n gt 2)')}`);
    expect(r.json.value.map((v: { status: string }) => v.status)).toEqual(many);
    expect((await get(`/engChangeNotices/$count?$apply=${q('groupby((status),aggregate($count as n))/filter(n gt 2)')}`)).text).toBe(String(many.length));
  });

  test('a second groupby groups the first one’s instances', async () => {
    const r = await get(`/engChangeNotices?$apply=${q('groupby((status,sourceType),aggregate($count as n))/groupby((status),aggregate(n with sum as total,n with max as most))')}`);
    expect(r.status).toBe(200);
    expect(Object.fromEntries(r.json.value.map((v: { status: string; total: number }) => [v.status, v.total]))).toEqual(countBy(ecns, (e) => e['status']));
  });

  test('filter-only $apply yields entities, read like any collection', async () => {
    const r = await get(`/engChangeNotices?$apply=${q("filter(status eq 'Approved')")}&$select=number,status`);
    expect(r.status).toBe(200);
    expect(r.json['@odata.context']).toBe(`${t.root}/$metadata#engChangeNotices(number,status)`);
    expect(r.json.value.map((e: { number: string }) => e.number)).toEqual(ecns.filter((e) => e['status'] === 'Approved').map((e) => e['number']));
    expect(r.json.value[0]['@odata.etag']).toMatch(/^W\//);
  });

  test('server-driven paging of groups: following nextLinks reads every group once', async () => {
    const groups = countBy(ecns, (e) => `${String(e['status'])}|${String(e['changeReasonCode'])}`);
    let url: string | undefined = `${t.root}/engChangeNotices?$apply=${q('groupby((status,changeReasonCode),aggregate($count as n))')}&$orderby=n%20desc`;
    const seen: Record<string, number> = {};
    let pages = 0;
    while (url !== undefined) {
      const r = await get(url.slice(t.root.length), { Prefer: 'odata.maxpagesize=2' });
      expect(r.status).toBe(200);
      expect(r.headers['Preference-Applied']).toBe('odata.maxpagesize=2');
      expect(r.json.value.length).toBeLessThanOrEqual(2);
      for (const v of r.json.value) {
        const k = `${v.status}|${String(v.changeReasonCode)}`;
        expect(seen[k]).toBeUndefined();
        seen[k] = v.n;
      }
      url = r.json['@odata.nextLink'];
      pages++;
    }
    expect(seen).toEqual(groups);
    expect(pages).toBe(Math.ceil(Object.keys(groups).length / 2));
  });

  test('IEEE754Compatible=true: aggregated Int64 and Decimal values and @odata.count are strings', async () => {
    const r = await get(`/engChangeNoticeBOMLines?$apply=${q('groupby((type),aggregate($count as n,quantityPer with sum as total))')}&$count=true`, { Accept: 'application/json;IEEE754Compatible=true' });
    expect(typeof r.json['@odata.count']).toBe('string');
    for (const v of r.json.value) expect([typeof v.n, typeof v.total]).toEqual(['string', 'string']);
  });
});

describe('orderby, top, skip and concat (what OpenUI5 grouped tables send)', () => {
  const statusValue = (s: string): number => ['New', 'Pending_x0020_Approval', 'Approved', 'Rejected', 'Closed'].indexOf(s);
  const sortedCounts = (): [string, number][] => Object.entries(countBy(ecns, (e) => e['status'])).sort(([a, x], [b, y]) => y - x || statusValue(a) - statusValue(b));

  test('orderby then skip and top cut the groups in that order, and the response keeps it', async () => {
    const r = await get(`/engChangeNotices?$apply=${q('groupby((status),aggregate($count as n))/orderby(n desc,status)/skip(1)/top(2)')}`);
    expect(r.status).toBe(200);
    expect(r.json.value.map((v: { status: string; n: number }) => [v.status, v.n])).toEqual(sortedCounts().slice(1, 3));
  });

  test('the grouped-table request of OpenUI5: leaves count, group count, then the first groups', async () => {
    const apply = 'concat(groupby((sourceType,status))/aggregate($count as UI5__leaves),groupby((status),aggregate(sourceSequence with sum as total))/concat(aggregate($count as UI5__count),top(10)))';
    const r = await get(`/engChangeNotices?$apply=${q(apply)}`);
    expect(r.status).toBe(200);
    expect(r.json['@odata.context']).toBe(`${t.root}/$metadata#engChangeNotices(@Core.AnyStructure)`);
    const statuses = Object.keys(countBy(ecns, (e) => e['status'])).sort();
    const totals = Object.fromEntries(statuses.map((s) => [s, ecns.filter((e) => e['status'] === s).reduce((sum, e) => sum + Number(e['sourceSequence']), 0)]));
    expect(r.json.value).toEqual([
      { UI5__leaves: Object.keys(countBy(ecns, (e) => `${String(e['sourceType'])}|${String(e['status'])}`)).length },
      { UI5__count: statuses.length },
      ...statuses.map((status) => ({ status, total: totals[status] })),
    ]);
  });

  test('a concat result pages by offset: following nextLinks reads every row once, in order', async () => {
    const apply = q('groupby((status,changeReasonCode),aggregate($count as n))/concat(aggregate($count as groups),orderby(n desc)/top(100))');
    const whole = (await get(`/engChangeNotices?$apply=${apply}`)).json.value;
    let url: string | undefined = `${t.root}/engChangeNotices?$apply=${apply}&$count=true`;
    const read: unknown[] = [];
    while (url !== undefined) {
      const r = await get(url.slice(t.root.length), { Prefer: 'odata.maxpagesize=3' });
      expect(r.status).toBe(200);
      expect(r.json['@odata.count']).toBe(whole.length);
      read.push(...r.json.value);
      url = r.json['@odata.nextLink'];
    }
    expect(read).toEqual(whole);
    const groups = Object.keys(countBy(ecns, (e) => `${String(e['status'])}|${String(e['changeReasonCode'])}`)).length;
    expect(whole[0]).toEqual({ groups });
    expect(whole).toHaveLength(1 + groups);
  });

  test('$filter on a concat result → 501; a transformation after concat → 501', async () => {
    expect((await get(`/engChangeNotices?$apply=${q('groupby((status))/concat(top(1),skip(1))')}&$filter=${q("status eq 'New'")}`)).status).toBe(501);
    expect((await get(`/engChangeNotices?$apply=${q('groupby((status))/concat(top(1),skip(1))/top(1)')}`)).status).toBe(501);
  });
});

describe('what is not supported or not valid', () => {
  test.each([
    ['compute(sourceSequence add 1 as s)', 'compute'],
    ['topcount(2,sourceSequence)', 'topcount'],
    ['search(blue)', 'search'],
    ['orderby(number)/top(2)', 'before groupby or aggregate'],
    ['Microsoft.NAV.custom()', 'Microsoft.NAV.custom'],
    ['groupby((rollup(status,sourceType)),aggregate($count as n))', 'rollup'],
    ['groupby((status),filter(sourceSequence gt 1)/aggregate($count as n))', 'filter/aggregate'],
    ['aggregate(sourceSequence with sum from status with max as x)', 'from'],
    ['aggregate(sourceSequence with Microsoft.NAV.median as x)', 'Microsoft.NAV.median'],
    ['aggregate(engChangeNoticeBOMLines/$count as x)', 'path/$count'],
    ['groupby((changeReason))', 'changeReason'],
  ])('%s → 501 naming %s', async (apply, named) => {
    const r = await get(`/engChangeNotices?$apply=${q(apply)}`);
    expect(r.status).toBe(501);
    expect(r.json.error.code).toBe('BadRequest_NotImplemented');
    expect(r.json.error.message).toContain(named);
  });

  test('sum over a navigation path → 501 saying why', async () => {
    const r = await get(`/engChangeNoticeBOMLines?$apply=${q('aggregate(engChangeNotice/sourceSequence with sum as x)')}`);
    expect(r.status).toBe(501);
    expect(r.json.error.message).toContain('each related entity once');
  });

  test.each([
    ['groupbyy((status))', 'BadRequest_InvalidRequestUrl', 'not a transformation'],
    ['groupby((nope))', 'BadRequest_NotFound', 'nope'],
    ['groupby((status),aggregate($count as status))', 'BadRequest_InvalidRequestUrl', "alias 'status'"],
    ['aggregate($count as number)', 'BadRequest_InvalidRequestUrl', "alias 'number'"],
    ['aggregate(number with sum as x)', 'BadRequest_InvalidRequestUrl', 'needs a number'],
    ['aggregate(sourceSequence)', 'BadRequest_InvalidRequestUrl', 'not a custom aggregate'],
    ['groupby((engChangeNoticeBOMLines/type))', 'BadRequest_InvalidRequestUrl', 'collection'],
    ["filter(creationDate eq 2023-02-30)/aggregate($count as n)", 'BadRequest_InvalidRequestUrl', '2023-02-30'],
  ])('%s → 400 %s', async (apply, code, message) => {
    const r = await get(`/engChangeNotices?$apply=${q(apply)}`);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(code);
    expect(r.json.error.message).toContain(message);
  });

  test('$filter naming a property the aggregated result does not have → 400 listing its properties', async () => {
    const r = await get(`/engChangeNotices?$apply=${q('groupby((status),aggregate($count as n))')}&$filter=${q("number eq 'x'")}`);
    expect(r.status).toBe(400);
    expect(r.json.error.message).toContain('status, n');
  });

  test('$select/$expand with an aggregating $apply → 501; $apply on a single entity → 400', async () => {
    expect((await get(`/engChangeNotices?$apply=${q('groupby((status))')}&$select=status`)).status).toBe(501);
    expect((await get(`/engChangeNotices?$apply=${q('groupby((status))')}&$expand=changeReason`)).status).toBe(501);
    expect((await get(`/engChangeNotices?$expand=engChangeNoticeBOMLines($apply=${q('aggregate($count as n)')})`)).status).toBe(501);
    const one = await get(`/engChangeNotices(${String(ecns[0]?.['id'])})?$apply=${q('groupby((status))')}`);
    expect(one.status).toBe(400);
    expect(one.json.error.message).toContain('$apply applies to reading a collection');
  });
});

describe('permissions', () => {
  test('a grouping path into a type the caller may not read → 403; the same set without it → 200', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-apply-'));
    fs.cpSync(REPO_METADATA, path.join(dir, 'metadata'), { recursive: true });
    const file = path.join(dir, 'metadata', 'entities', 'engChangeOrder.json');
    const eco = JSON.parse(fs.readFileSync(file, 'utf8'));
    eco.navigationProperties.push({ name: 'engChangeNotice', target: 'engChangeNotice', collection: false, joins: [{ source: 'engChangeNoticeNumber', target: 'number' }] });
    fs.writeFileSync(file, JSON.stringify(eco));
    const s = await startTestService({ metadataDir: path.join(dir, 'metadata') });
    try {
      const planner = await s.token('PLANNER'); // TASK-WRITE only
      const call = (apply: string) => s.call('GET', `/engChangeOrders?$apply=${q(apply)}`, { token: planner });
      expect((await call('groupby((status),aggregate($count as n))')).status).toBe(200);
      for (const apply of ['groupby((engChangeNotice/status))', 'aggregate(engChangeNotice/sourceSequence with max as m)', "filter(engChangeNotice/status eq 'Approved')/aggregate($count as n)"]) {
        const r = await call(apply);
        expect([apply, r.status]).toEqual([apply, 403]);
        expect(r.json.error.code).toBe('Authorization_PermissionDenied');
      }
      const admin = await s.call('GET', `/engChangeOrders?$apply=${q('groupby((engChangeNotice/status),aggregate($count as n))')}`);
      expect(admin.status).toBe(200);
      expect(admin.json['@odata.context']).toContain('engChangeOrders(engChangeNotice(status),n)');
    } finally {
      await s.close();
    }
  });

  test('a caller without ECN-READ cannot aggregate ECNs', async () => {
    const r = await t.call('GET', `/engChangeNotices?$apply=${q('aggregate($count as n)')}`, { token: await t.token('PLANNER') });
    expect(r.status).toBe(403);
  });
});
