/**
 * Server-driven paging: keyset $skiptoken, Prefer: odata.maxpagesize, $top below the page size,
 * each row exactly once over 100,000 rows even with inserts between pages, and no N+1 in $expand.
 */
import { randomUUID } from 'node:crypto';
import { onPostgres } from '../helpers/postgres.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let t: TestService;
let company: string;
beforeAll(async () => {
  t = await startTestService();
  company = t.companyIds[0] as string;
});
afterAll(() => t.close());

/** Inserts `n` bare ECNs straight into the table (fast: multi-row INSERTs of 500), numbered from `from`. */
async function bulkEcns(n: number, from: number, prefix = 'BULK'): Promise<string[]> {
  const ids: string[] = [];
  const row = "(?, ?, ?, 'New', '_x0020_', '_x0020_', '_x0020_', ?, '2026-01-01T00:00:00.000Z', 1)";
  for (let start = 0; start < n; start += 500) {
    const count = Math.min(500, n - start);
    const params: unknown[] = [];
    for (let i = start; i < start + count; i++) {
      const id = randomUUID();
      ids.push(id);
      params.push(id, company, `${prefix}${String(from + i).padStart(7, '0')}`, (from + i) % 97);
    }
    await t.query(
      `INSERT INTO "engChangeNotices" ("id", "_companyId", "number", "status", "sourceType", "sourceStatus", "sourceSalesDocumentType", "sourceSequence", "lastModifiedDateTime", "_version") VALUES ${Array(count).fill(row).join(', ')}`,
      params,
    );
  }
  return ids;
}

function relative(nextLink: string): string {
  return nextLink.slice(t.root.length);
}

/** Tests that count the statements of SQLite's connection (its `get` and statementCount) are skipped on PostgreSQL. */
const sqliteOnly = onPostgres() ? test.skip : test;

test('Prefer: odata.maxpagesize gives pages with a nextLink and Preference-Applied', async () => {
  const r = await t.call('GET', `/companies(${company})/engChangeNotices?$select=number`, { headers: { Prefer: 'odata.maxpagesize=5' } });
  expect(r.status).toBe(200);
  expect(r.json.value).toHaveLength(5);
  expect(r.headers['Preference-Applied']).toBe('odata.maxpagesize=5');
  const next = r.json['@odata.nextLink'] as string;
  expect(next).toMatch(new RegExp(`^${t.root.replace(/[.]/g, '\\.')}/companies\\(${company}\\)/engChangeNotices\\?\\$select=number&\\$skiptoken=[A-Za-z0-9_-]+$`));
  const second = await t.call('GET', relative(next), { headers: { Prefer: 'odata.maxpagesize=5' } });
  expect(second.json.value.map((e: { number: string }) => e.number)).toEqual(['ECN000006', 'ECN000007', 'ECN000008', 'ECN000009', 'ECN000010']);
  expect(Object.keys(second.json)).toEqual(['@odata.context', 'value', '@odata.nextLink']);
});

test('a client $top at or below the page size gets no nextLink; above it, the rest of $top carries over', async () => {
  const small = await t.call('GET', '/engChangeNotices?$top=3', { headers: { Prefer: 'odata.maxpagesize=5' } });
  expect(small.json.value).toHaveLength(3);
  expect(small.json['@odata.nextLink']).toBeUndefined();
  const big = await t.call('GET', '/engChangeNotices?$top=7&$select=number', { headers: { Prefer: 'odata.maxpagesize=5' } });
  expect(big.json.value).toHaveLength(5);
  expect(big.json['@odata.nextLink']).toContain('$top=2');
  const rest = await t.call('GET', relative(big.json['@odata.nextLink']), { headers: { Prefer: 'odata.maxpagesize=5' } });
  expect(rest.json.value.map((e: { number: string }) => e.number)).toEqual(['ECN000006', 'ECN000007']);
  expect(rest.json['@odata.nextLink']).toBeUndefined();
});

sqliteOnly('a page no next page can follow ($top within the page size) is one JSON text from one statement, equal to the streamed page', async () => {
  const db = t.service.db;
  const seen: { sql: string; params: readonly unknown[] }[] = [];
  const get = db.get.bind(db);
  db.get = (q) => {
    seen.push(q);
    return get(q);
  };
  try {
    // The same first page two ways: `$top=N` (one aggregated text) and Prefer odata.maxpagesize=N (rows streamed one by one).
    const queries = [
      '$select=number&$orderby=number desc',
      "$filter=status ne 'Closed'&$orderby=sourceSequence desc&$select=number,sourceSequence",
      '$expand=engChangeNoticeComments($orderby=lineNo desc;$select=comment)&$orderby=number',
      '$count=true&$select=number',
      "$filter=number eq 'no such number'",
    ];
    for (const q of queries) {
      seen.length = 0;
      const top = await t.call('GET', `/companies(${company})/engChangeNotices?${q}&$top=4`);
      expect(top.status).toBe(200);
      expect(seen.filter((s) => s.sql.includes('AS "_page"'))).toHaveLength(1);
      const streamed = await t.call('GET', `/companies(${company})/engChangeNotices?${q}`, { headers: { Prefer: 'odata.maxpagesize=4' } });
      expect(top.json.value).toEqual(streamed.json.value);
      expect(top.json['@odata.count']).toEqual(streamed.json['@odata.count']);
      expect(top.json['@odata.nextLink']).toBeUndefined();
    }
    seen.length = 0;
    const r = await t.call('GET', `/companies(${company})/engChangeNotices?$select=number&$top=2`);
    expect(r.json.value.map((e: { number: string }) => e.number)).toEqual(['ECN000001', 'ECN000002']);
    const page = seen.find((s) => s.sql.includes('AS "_page"'));
    expect(page).toEqual({
      sql:
        `SELECT group_concat("p"."_json", ?) AS "_page" FROM (SELECT json_object('@odata.etag', CASE WHEN ("t0"."_etagOf" = "t0"."_version") THEN "t0"."_etag" ELSE odata_etag("t0"."_version") END, 'id', "t0"."id", 'number', "t0"."number") AS "_json", "t0"."id" AS "id", "t0"."_version" AS "_version", "t0"."number" AS "_sort0" FROM "engChangeNotices" AS "t0" WHERE ("t0"."_companyId" = ?) ORDER BY "t0"."number" ASC LIMIT CAST(? AS INTEGER)) AS "p"`,
      params: [',', company, 2],
    });
    const empty = await t.call('GET', `/companies(${company})/engChangeNotices?$top=0`);
    expect(empty.json.value).toEqual([]);
  } finally {
    db.get = get;
  }
});

test('paging follows $filter and $orderby (descending, with ties broken by the key)', async () => {
  const all = (await t.call('GET', "/engChangeNotices?$filter=status ne 'Closed'&$orderby=sourceSequence desc&$select=number,sourceSequence")).json.value as { number: string }[];
  const seen: string[] = [];
  let url: string | undefined = "/engChangeNotices?$filter=status ne 'Closed'&$orderby=sourceSequence desc&$select=number,sourceSequence";
  while (url !== undefined) {
    const r = await t.call('GET', url, { headers: { Prefer: 'odata.maxpagesize=2' } });
    seen.push(...(r.json.value as { number: string }[]).map((e) => e.number));
    url = r.json['@odata.nextLink'] === undefined ? undefined : relative(r.json['@odata.nextLink']);
  }
  expect(seen).toEqual(all.map((e) => e.number));
});

test('a tampered $skiptoken is a 400', async () => {
  for (const token of ['garbage!', Buffer.from('[1,2,3]').toString('base64url'), Buffer.from('{"x":1}').toString('base64url'), Buffer.from('[null]').toString('base64url')]) {
    const r = await t.call('GET', `/engChangeNotices?$skiptoken=${token}`);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('BadRequest_InvalidRequestUrl');
  }
});

test('following nextLinks over 100,000 rows returns each row exactly once, also with inserts between pages', async () => {
  const ids = await bulkEcns(100_000, 1);
  const inserted: string[] = [];
  const seen = new Map<string, number>();
  let url: string | undefined = `/companies(${company})/engChangeNotices?$select=number&$filter=startswith(number,'BULK')`;
  let pages = 0;
  while (url !== undefined) {
    const r = await t.call('GET', url, { headers: { Prefer: 'odata.maxpagesize=5000' } });
    expect(r.status).toBe(200);
    for (const e of r.json.value as { id: string }[]) seen.set(e.id, (seen.get(e.id) ?? 0) + 1);
    pages++;
    // Between pages, other clients insert rows before and after the cursor.
    if (pages % 4 === 0) inserted.push(...(await bulkEcns(10, 200_000 + pages * 10)), ...(await bulkEcns(10, pages * 100, 'BULK0')));
    url = r.json['@odata.nextLink'] === undefined ? undefined : relative(r.json['@odata.nextLink']);
  }
  for (const id of ids) expect(seen.get(id)).toBe(1);
  expect([...seen.values()].every((n) => n === 1)).toBe(true);
  // Rows inserted after the cursor (numbers sorting after it) show up; none appears twice.
  const late = inserted.filter((id) => seen.has(id));
  expect(late.length).toBeGreaterThan(0);
  expect(pages).toBeGreaterThanOrEqual(20);
}, 120_000);

sqliteOnly('$expand two levels deep over 500 parents runs a constant number of statements', async () => {
  const db = t.service.db;
  const measure = async (top: number, expand: boolean): Promise<number> => {
    const before = db.statementCount;
    const query = `$top=${top}${expand ? '&$expand=engChangeNotice($expand=engChangeNoticeBOMLines,engChangeNoticeComments)' : ''}`;
    const r = await t.call('GET', `/companies(${company})/engChangeNoticeComments?${query}`);
    expect(r.status).toBe(200);
    expect(r.json.value.length).toBeGreaterThan(0);
    return db.statementCount - before;
  };
  // 500 parents: make enough comments exist.
  const ecn = (await t.call('GET', '/engChangeNotices?$top=1')).json.value[0];
  for (let i = 0; i < 500; i++) await t.call('POST', `/engChangeNotices(${ecn.id})/engChangeNoticeComments`, { body: { comment: `c${i}` } });
  const plain = await measure(500, false);
  const one = await measure(1, true);
  const many = await measure(500, true);
  // The expansions live inside the page's statement: the same count as without $expand, for 1 or 500 parents.
  expect(one).toBe(plain);
  expect(many).toBe(plain);
}, 60_000);
