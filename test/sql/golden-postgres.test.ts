/**
 * Golden SQL on PostgreSQL: the exact SQL and parameters the PostgreSQL dialect gives for the cases
 * where it differs from SQLite's (null-safe equality, NULL placement, `$n` placeholders, LIMIT without
 * SQLite's -1, Unicode case mapping, integer division, JSON built in the database), each executed on
 * the real server; then every golden case of golden-cases.ts and every `$apply` case of
 * golden-apply-cases.ts: its exact PostgreSQL SQL and parameters (the committed snapshot,
 * __snapshots__/golden-postgres.test.ts.snap, reviewed like any golden SQL), executed there, selecting
 * the rows it selects on SQLite. The server is the one the run starts (test/postgres/global-setup.mjs).
 */
import { startGoldenService } from './golden-fixture.js';
import { compileAggregated, compileQuery, runOnEngine } from './golden-harness.js';
import { APPLY } from './golden-apply-cases.js';
import { A, cases } from './golden-cases.js';
import { createEmptyDatabase, type EmptyDatabase } from '../helpers/postgres.js';
import type { Service } from '../../src/service.js';

let service: Service;
let sqlite: Service;
let database: EmptyDatabase;
beforeAll(async () => {
  database = await createEmptyDatabase('golden');
  service = await startGoldenService(database.url);
  sqlite = await startGoldenService();
});
afterAll(async () => {
  await service.close();
  await sqlite.close();
  await database.drop();
});

const COLS = 'SELECT "t0"."id" AS "id", "t0"."number" AS "number", "t0"."_version" AS "_version" FROM "engChangeNotices" AS "t0"';
const ORDER = ' ORDER BY "t0"."number" ASC NULLS FIRST';

const exact: { q: string; sql: string; params: readonly unknown[]; rows: readonly string[] }[] = [
  // eq null is null-safe (OData: null eq null is true): IS NOT DISTINCT FROM, the null bound as $2.
  { q: "$filter=drawingNumber%20eq%20null", sql: `${COLS} WHERE (("t0"."_companyId" = $1) AND ("t0"."drawingNumber" IS NOT DISTINCT FROM $2))${ORDER}`, params: [A, null], rows: ['N03'] },
  // NULLs first ascending, last descending, as SQLite orders them.
  { q: '$orderby=drawingTypeCode%20desc&$top=3', sql: `${COLS} WHERE ("t0"."_companyId" = $1) ORDER BY "t0"."drawingTypeCode" DESC NULLS LAST, "t0"."id" ASC LIMIT $2`, params: [A, 3n], rows: ['N05', 'N02', 'N06'] },
  { q: '$orderby=drawingTypeCode&$top=3', sql: `${COLS} WHERE ("t0"."_companyId" = $1) ORDER BY "t0"."drawingTypeCode" ASC NULLS FIRST, "t0"."id" ASC LIMIT $2`, params: [A, 3n], rows: ['N03', 'N07', 'N09'] },
  // Unicode case mapping by the function the migration creates (postgres-functions.ts).
  { q: "$filter=tolower(drawingNumber)%20eq%20'ünïcödé%20ø'", sql: `${COLS} WHERE (("t0"."_companyId" = $1) AND (odata_tolower("t0"."drawingNumber") = $2))${ORDER}`, params: [A, 'ünïcödé ø'], rows: ['N04'] },
  // eq with a value is `=`, which an index answers (IS NOT DISTINCT FROM never is); under a not it is
  // wrapped in IS TRUE, so a NULL (N03) counts as not equal, as OData says.
  { q: "$filter=not%20(tolower(drawingNumber)%20eq%20'ünïcödé%20ø')", sql: `${COLS} WHERE (("t0"."_companyId" = $1) AND (NOT ((odata_tolower("t0"."drawingNumber") = $2) IS TRUE)))${ORDER}`, params: [A, 'ünïcödé ø'], rows: ['N01', 'N02', 'N03', 'N05', 'N06', 'N07', 'N08', 'N09', 'N10'] },
  // Integer division truncates; a zero divisor is NULL (nullif), as on SQLite, not an error. Integer
  // arithmetic is 64-bit, as SQLite's (Dialect.wideInteger): Int32 operands are cast to bigint.
  { q: '$filter=sourceSequence%20div%203%20eq%203', sql: `${COLS} WHERE (("t0"."_companyId" = $1) AND ((CAST("t0"."sourceSequence" AS bigint) / nullif(CAST($2 AS bigint), 0)) = $3))${ORDER}`, params: [A, 3n, 3n], rows: ['N02', 'N07'] },
  // A literal wider than the Int32 it is compared with is typed as itself (Dialect.typedValue): no row, not an out-of-range error.
  { q: '$filter=sourceSequence%20lt%203000000000', sql: `${COLS} WHERE (("t0"."_companyId" = $1) AND ("t0"."sourceSequence" < CAST($2 AS bigint)))${ORDER}`, params: [A, 3000000000n], rows: ['N01', 'N02', 'N03', 'N04', 'N05', 'N06', 'N07', 'N08', 'N09', 'N10'] },
  { q: '$filter=sourceSequence%20eq%201.5', sql: `${COLS} WHERE (("t0"."_companyId" = $1) AND ("t0"."sourceSequence" = CAST($2 AS numeric)))${ORDER}`, params: [A, 1.5], rows: [] },
  // startswith with a literal also states the prefix's code-point range, which a prepared statement's
  // plan can narrow an index with (it does not know the LIKE pattern); the LIKE still decides.
  { q: "$filter=startswith(drawingNumber,'a')", sql: `${COLS} WHERE (("t0"."_companyId" = $1) AND ((("t0"."drawingNumber" >= $2) AND ("t0"."drawingNumber" < $3)) AND ("t0"."drawingNumber" LIKE $4)))${ORDER}`, params: [A, 'a', 'b', 'a%'], rows: ['N05', 'N07'] },
  // OFFSET alone: no LIMIT -1.
  { q: '$skip=8', sql: `${COLS} WHERE ("t0"."_companyId" = $1)${ORDER} OFFSET $2`, params: [A, 8n], rows: ['N09', 'N10'] },
];

test.each(exact)('$q: exact PostgreSQL SQL, then executed', async (c) => {
  const q = compileQuery(service, c.q);
  expect({ sql: q.sql, params: q.params }).toEqual({ sql: c.sql, params: c.params });
  expect((await runOnEngine(service, q)).map((r) => r['number'])).toEqual(c.rows);
});

test.each(cases.map((c) => c.q))('%s: the exact PostgreSQL SQL of the golden case', (q) => {
  const compiled = compileQuery(service, q);
  expect({ sql: compiled.sql, params: compiled.params }).toMatchSnapshot();
});

test.each(Object.entries(APPLY))('$apply %s: exact PostgreSQL SQL, then executed, giving the rows SQLite gives', async (_name, c) => {
  const pg = compileAggregated(service, c);
  expect({ sql: pg.compiled.sql, params: pg.compiled.params, count: pg.count.sql }).toMatchSnapshot();
  const lite = compileAggregated(sqlite, c);
  expect(await service.engine.db.all(pg.compiled)).toEqual(sqlite.db.all(lite.compiled));
  expect(Number((await service.engine.db.get(pg.count))?.['n'])).toBe(Number(sqlite.db.get(lite.count)?.['n']));
});

test.each([
  "$filter=not%20startswith(drawingNumber,'a')",
  "$filter=startswith(drawingNumber,'a')%20eq%20false",
  "$filter=startswith(drawingNumber,'')",
  "$filter=startswith(drawingNumber,'%25')%20or%20startswith(number,'N0')",
  "$filter=engChangeNoticeBOMLines/any(b:%20not%20startswith(b/itemNumber,'CMP'))",
])('%s: startswith with its prefix range selects on PostgreSQL the rows SQLite selects (NULLs, negation, an empty prefix)', async (q) => {
  const rows = (await runOnEngine(service, compileQuery(service, q))).map((r) => r['number']);
  expect(rows).toEqual(sqlite.db.all(compileQuery(sqlite, q)).map((r) => r['number']));
});

test('every golden case selects on PostgreSQL the rows it selects on SQLite', async () => {
  const wrong: string[] = [];
  for (const c of cases) {
    const rows = (await runOnEngine(service, compileQuery(service, c.q))).map((r) => r['number']);
    if (JSON.stringify(rows) !== JSON.stringify(c.rows)) wrong.push(`${c.q}: ${JSON.stringify(rows)} (SQLite: ${JSON.stringify(c.rows)})`);
  }
  expect(wrong).toEqual([]);
});

test('expanded rows come back as JSON built by the database', async () => {
  const one = await runOnEngine(service, compileQuery(service, "$select=number&$expand=engChangeNoticeComments($select=comment;$orderby=comment%20desc;$top=1)&$filter=number%20eq%20'N01'"));
  expect(JSON.parse(String(one[0]?.['engChangeNoticeComments'])).map((c: { comment: string }) => c.comment)).toEqual(['first']);
});
