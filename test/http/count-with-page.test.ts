/**
 * A page with `$count=true` that the database writes as one text (query/plan-read-request.ts `countInRows`):
 * the page and its count are the two columns of one statement, so PostgreSQL runs one statement on
 * the pool instead of a transaction of four round trips. Checked: the exact SQL and parameters of
 * the one step, the count against a separate `/$count` with filters and past the end, and on PostgreSQL
 * that no transaction is begun for them.
 */
import { onPostgres } from '../helpers/postgres.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import type { ReadRequest } from '../../src/db/engine.js';
import { recordingReads } from '../helpers/recording-statements.js';
import { PostgresDatabase } from '../../src/db/postgres/postgres-database.js';

let t: TestService;
let company: string;
beforeAll(async () => {
  t = await startTestService();
  company = t.companyIds[0] as string;
});
afterAll(() => t.close());

const postgres = onPostgres();
const p = (n: number): string => (postgres ? `$${n}` : '?');

/** The reads a request runs, as the engine receives them. */
async function readsOf(url: string): Promise<{ reads: ReadRequest[]; json: Record<string, unknown> }> {
  const { value: r, reads } = await recordingReads(t, () => t.call('GET', url));
  expect(r.status).toBe(200);
  return { reads, json: r.json };
}

async function countOf(path: string): Promise<number> {
  const r = await t.call('GET', path);
  expect(r.status).toBe(200);
  return Number(r.text);
}

test('the page and its count are one statement with the exact SQL and parameters', async () => {
  const { reads, json } = await readsOf(`/companies(${company})/engChangeNotices?$count=true&$top=2&$select=number`);
  expect(reads).toHaveLength(1);
  const steps = reads[0]?.steps ?? [];
  expect(steps.map((s) => s.kind)).toEqual(['row']);
  const etag = 'CASE WHEN ("t0"."_etagOf" = "t0"."_version") THEN "t0"."_etag" ELSE odata_etag("t0"."_version") END';
  // PostgreSQL builds the entity from a LATERAL one-row SELECT beside the row (postgres-dialect.ts jsonObject).
  const entity = postgres ? 'CAST(row_to_json("t1".*) AS text)' : `json_object('@odata.etag', ${etag}, 'id', "t0"."id", 'number', "t0"."number")`;
  const lateral = postgres ? ` CROSS JOIN LATERAL (SELECT ${etag} AS "@odata.etag", "t0"."id" AS "id", "t0"."number" AS "number") AS "t1"` : '';
  // The entities joined by commas; the response adds the brackets (NULL, for no row, is `[]`).
  const pageAgg = postgres ? `string_agg("p"."_json", ${p(1)})` : `group_concat("p"."_json", ?)`;
  const limit = postgres ? `LIMIT ${p(3)}` : 'LIMIT CAST(? AS INTEGER)';
  const nullsFirst = postgres ? ' NULLS FIRST' : '';
  const page =
    `SELECT ${pageAgg} AS "_page" FROM (SELECT ${entity} AS "_json", "t0"."id" AS "id", "t0"."_version" AS "_version", "t0"."number" AS "_sort0" ` +
    `FROM "engChangeNotices" AS "t0"${lateral} WHERE ("t0"."_companyId" = ${p(2)}) ORDER BY "t0"."number" ASC${nullsFirst} ${limit}) AS "p"`;
  // A whole set's count: PostgreSQL reads the count it keeps (db/postgres/postgres-set-counts.ts);
  // SQLite counts the table without the company condition when it holds one company.
  const count = postgres
    ? `SELECT CAST(coalesce(sum("sc"."n"), 0) AS bigint) AS "n" FROM "_setCounts" AS "sc" WHERE (("sc"."table" = ${p(4)}) AND ("sc"."companyId" = ${p(5)}))`
    : `SELECT CASE WHEN ("k"."c" = 1) THEN (SELECT count(*) FROM "engChangeNotices" AS "a") ELSE (SELECT count(*) FROM "engChangeNotices" AS "t0" WHERE ("t0"."_companyId" = ${p(4)})) END AS "n" ` +
      'FROM (SELECT count(*) AS "c" FROM "companies" AS "c") AS "k"';
  const step = steps[0];
  if (step?.kind !== 'row') throw new Error('no row step');
  expect(step.query.sql).toBe(`SELECT (${page}) AS "_page", (${count}) AS "n"`);
  expect(step.query.params).toEqual(postgres ? [',', company, 2n, 'engChangeNotices', company] : [',', company, 2, company]);
  expect(json['@odata.count']).toBe(await countOf(`/companies(${company})/engChangeNotices/$count`));
  expect((json['value'] as unknown[]).length).toBe(2);
});

test('the count in the row is the filtered count, also on an empty page past the end', async () => {
  const filter = "$filter=status%20eq%20'Approved'";
  const approved = await countOf(`/companies(${company})/engChangeNotices/$count?${filter}`);
  expect(approved).toBeGreaterThan(0);
  const { reads, json } = await readsOf(`/companies(${company})/engChangeNotices?$count=true&${filter}&$top=1&$select=status`);
  expect(reads[0]?.steps).toHaveLength(1);
  expect(json['@odata.count']).toBe(approved);
  expect(json['value']).toEqual([expect.objectContaining({ status: 'Approved' })]);
  const past = await readsOf(`/companies(${company})/engChangeNotices?$count=true&${filter}&$skip=100000&$top=5`);
  expect(past.json['@odata.count']).toBe(approved);
  expect(past.json['value']).toEqual([]);
});

test('without $count, or when the page is streamed (no $top), the count is not folded into the page', async () => {
  const plain = await readsOf(`/companies(${company})/engChangeNotices?$top=2`);
  expect(plain.reads[0]?.steps).toHaveLength(1);
  expect(plain.json['@odata.count']).toBeUndefined();
  const streamed = await readsOf(`/companies(${company})/engChangeNotices?$count=true`);
  expect(streamed.reads[0]?.steps.map((s) => s.kind)).toEqual(['page', 'row']);
  expect(streamed.json['@odata.count']).toBe(await countOf(`/companies(${company})/engChangeNotices/$count`));
});

/** How many transactions PostgreSQL's pool begins while `body` runs (none on SQLite). */
async function transactionsDuring(body: () => Promise<unknown>): Promise<number> {
  const proto = PostgresDatabase.prototype;
  const original = proto.transaction;
  let n = 0;
  proto.transaction = function (this: PostgresDatabase, ...args: Parameters<typeof original>) {
    n++;
    return original.apply(this, args);
  } as typeof original;
  try {
    await body();
    return n;
  } finally {
    proto.transaction = original;
  }
}

(postgres ? test : test.skip)('on PostgreSQL the page and its count need no transaction; a streamed page and its count still take one', async () => {
  expect(await transactionsDuring(() => readsOf(`/companies(${company})/engChangeNotices?$count=true&$top=5`))).toBe(0);
  expect(await transactionsDuring(() => readsOf(`/companies(${company})/engChangeNotices?$count=true`))).toBe(1);
});

describe('aggregated pages ($apply) with $count=true', () => {
  // The instances' alias is not `n`, the name of the count column the rows carry: it must not leak into them.
  const apply = '$apply=groupby((status),aggregate($count%20as%20total))';

  test('every row carries the count: one statement with the exact SQL and parameters', async () => {
    const { reads, json } = await readsOf(`/companies(${company})/engChangeNotices?${apply}&$count=true&$top=2`);
    expect(reads).toHaveLength(1);
    const steps = reads[0]?.steps ?? [];
    expect(steps.map((s) => s.kind)).toEqual(['rows']);
    const step = steps[0];
    if (step?.kind !== 'rows') throw new Error('no rows step');
    // groupby((status)) with $count is counted member by member of the enum (plan-apply.ts memberGroupSelect): 7 parameters from `n`.
    const statuses = ['New', 'Pending_x0020_Approval', 'Approved', 'Rejected', 'Closed'];
    const grouped = (n: number): string =>
      `(SELECT "t0"."v" AS "c0", (SELECT count(*) FROM "engChangeNotices" AS "t1" WHERE (("t1"."_companyId" = ${p(n)}) AND ("t1"."status" = "t0"."v"))) AS "c1" ` +
      `FROM (${statuses.map((_, i) => `SELECT ${p(n + 1 + i)} AS "v"`).join(' UNION ALL ')}) AS "t0" ` +
      `WHERE EXISTS (SELECT 1 FROM "engChangeNotices" AS "t2" WHERE (("t2"."_companyId" = ${p(n + 6)}) AND ("t2"."status" = "t0"."v")))) AS "r"`;
    expect(step.query.sql).toBe(
      `SELECT "r"."c0" AS "c0", "r"."c1" AS "c1", (SELECT count(*) AS "n" FROM ${grouped(1)}) AS "n" FROM ${grouped(8)} ` +
        `ORDER BY "r"."c0" ASC${postgres ? ' NULLS FIRST' : ''} ${postgres ? `LIMIT ${p(15)}` : 'LIMIT CAST(? AS INTEGER)'}`,
    );
    expect(step.query.params).toEqual([company, ...statuses, company, company, ...statuses, company, postgres ? 2n : 2]);
    expect(json['@odata.count']).toBe(await countOf(`/companies(${company})/engChangeNotices/$count?${apply}`));
    expect(json['value']).toHaveLength(2);
    // The count's column is not an instance's property.
    for (const v of json['value'] as Record<string, unknown>[]) expect(Object.keys(v).sort()).toEqual(['status', 'total']);
  });

  test('an empty page past the end, which has no row to carry the count, reads it on its own', async () => {
    const groups = await countOf(`/companies(${company})/engChangeNotices/$count?${apply}`);
    expect(groups).toBeGreaterThan(1);
    const { reads, json } = await readsOf(`/companies(${company})/engChangeNotices?${apply}&$count=true&$skip=1000`);
    expect(json['value']).toEqual([]);
    expect(json['@odata.count']).toBe(groups);
    expect(reads.map((r) => r.steps.map((s) => s.kind))).toEqual([['rows'], ['row']]);
  });

  test('a filtered grouping and the next pages keep the count of all instances', async () => {
    const filtered = `$apply=filter(status%20ne%20'New')/groupby((status),aggregate($count%20as%20n))`;
    const groups = await countOf(`/companies(${company})/engChangeNotices/$count?${filtered}`);
    const first = await t.call('GET', `/companies(${company})/engChangeNotices?${filtered}&$count=true`, { headers: { Prefer: 'odata.maxpagesize=1' } });
    expect(first.json['@odata.count']).toBe(groups);
    expect(first.json.value).toHaveLength(1);
    const next = first.json['@odata.nextLink'] as string;
    const second = await t.call('GET', next.slice(t.root.length), { headers: { Prefer: 'odata.maxpagesize=1' } });
    expect(second.json['@odata.count']).toBe(groups);
    expect(second.json.value).toHaveLength(1);
    expect(second.json.value[0].status).not.toBe(first.json.value[0].status);
  });
});
