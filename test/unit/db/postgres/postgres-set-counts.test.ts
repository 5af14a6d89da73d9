/**
 * src/db/postgres/postgres-set-counts.ts on a real server: `$count` of a whole set reads the count
 * PostgreSQL keeps, and that count is the number of rows after every kind of change: the service's
 * POSTs and DELETEs, a change set rolled back, a cascade, another connection's SQL (a row moved to
 * another company too), TRUNCATE, and
 * writes racing a fold of the counts' rows. Rows written with the triggers off are found by
 * setCountsOff, and the migration counts them again.
 */
import pg from 'pg';
import { createEmptyDatabase, type EmptyDatabase } from '../../../helpers/postgres.js';
import { startTestService, type TestService } from '../../../helpers/test-service.js';
import { compactSetCounts, maintainSetCounts, setCountsOff } from '../../../../src/db/postgres/postgres-set-counts.js';
import { SET_COUNTS_TABLE } from '../../../../src/db/postgres/postgres-dialect.js';
import { MIGRATION_LOCK } from '../../../../src/db/postgres/postgres-migrate.js';
import type { PostgresEngine } from '../../../../src/db/postgres/postgres-engine.js';

let database: EmptyDatabase;
let t: TestService;
let base: string;
let engine: PostgresEngine;
beforeAll(async () => {
  database = await createEmptyDatabase('set_counts');
  t = await startTestService({ dbFile: database.url });
  base = `/companies(${t.companyIds[0]})`;
  engine = t.service.engine as PostgresEngine;
});
afterAll(async () => {
  await t.close();
  await database.drop();
});

type Json = Record<string, unknown>;
const get = async (url: string): Promise<Json> => {
  const r = await t.call('GET', `${base}/${url}`);
  expect(`${url} ${r.status}`).toBe(`${url} 200`);
  return r.json as Json;
};
/** `$count=true` of a whole set, `/$count`, and the rows the table holds for the company. */
async function counts(set: string, table: string): Promise<[number, number, number]> {
  const page = await get(`${set}?$count=true&$top=1`);
  const r = await t.call('GET', `${base}/${set}/$count`);
  const [rows] = await t.query(`SELECT count(*) AS "n" FROM "${table}" WHERE "_companyId" = $1`, [t.companyIds[0]]);
  return [Number(page['@odata.count']), Number(r.text), Number(rows?.['n'])];
}
/** The kept rows of the company's set. */
const keptRows = async (table: string): Promise<number> =>
  Number((await t.query(`SELECT count(*) AS "n" FROM "${SET_COUNTS_TABLE}" WHERE "table" = $1 AND "companyId" = $2`, [table, t.companyIds[0]]))[0]?.['n']);
/**
 * Folds a set's rows into one: a fold finding the engine's own one (a second after a write) at work
 * does nothing, so this one tries again until the rows are one, or gives up and lets the test see them.
 */
async function foldedRows(table: string): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    await compactSetCounts(engine.database);
    const n = await keptRows(table);
    if (n <= 1 || attempt === 20) return n;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const ecnIds = async (): Promise<string[]> => ((await get('engChangeNotices?$select=id&$top=1000')).value as Json[]).map((e) => String(e['id']));

test('a whole set is counted from the kept rows, a filtered set from its own rows', async () => {
  const [page, path, rows] = await counts('engChangeNotices', 'engChangeNotices');
  expect([page, path]).toEqual([rows, rows]);
  expect(rows).toBeGreaterThan(0);
  // The count read is the kept one: a row of +5 added by hand shows in both forms, and not in a filtered count.
  await t.query(`INSERT INTO "${SET_COUNTS_TABLE}" ("table", "companyId", "n") VALUES ('engChangeNotices', $1, 5)`, [t.companyIds[0]]);
  expect((await counts('engChangeNotices', 'engChangeNotices')).slice(0, 2)).toEqual([rows + 5, rows + 5]);
  const filtered = await get(`engChangeNotices?$count=true&$top=1&$filter=status eq 'New'`);
  const [n] = await t.query(`SELECT count(*) AS "n" FROM "engChangeNotices" WHERE "status" = 'New' AND "_companyId" = $1`, [t.companyIds[0]]);
  expect(filtered['@odata.count']).toBe(Number(n?.['n']));
  expect(await setCountsOff(t.service.engine.db, t.service.model)).toEqual([expect.stringMatching(/^engChangeNotices\/.*: kept \d+ != rows \d+$/)]);
  // Taken back with a row of -5: the engine's background fold may have merged the +5 into the set's
  // row by now (it runs a second after a write), so deleting the row of 5 would find none.
  await t.query(`INSERT INTO "${SET_COUNTS_TABLE}" ("table", "companyId", "n") VALUES ('engChangeNotices', $1, -5)`, [t.companyIds[0]]);
  expect(await setCountsOff(t.service.engine.db, t.service.model)).toEqual([]);
});

test('POSTs, DELETEs, a rolled-back change set, a cascade, a move and another connection keep the count', async () => {
  const [ecn] = await ecnIds();
  const before = await counts('engChangeNoticeComments', 'engChangeNoticeComments');
  const made: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await t.call('POST', `${base}/engChangeNoticeComments`, { body: { engChangeNoticeId: ecn, comment: `set count ${i}` } });
    expect(r.status).toBe(201);
    made.push(String((r.json as Json)['id']));
  }
  expect((await counts('engChangeNoticeComments', 'engChangeNoticeComments'))[0]).toBe(before[0] + 3);
  const gone = await t.call('DELETE', `${base}/engChangeNoticeComments(${made[0]})`, { headers: { 'If-Match': '*' } });
  expect(gone.status).toBe(204);
  expect((await counts('engChangeNoticeComments', 'engChangeNoticeComments'))[0]).toBe(before[0] + 2);

  // A change set whose second part fails: its first POST is rolled back, and so is its count.
  const part = (id: number, body: unknown): string =>
    `--cs\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\nContent-ID: ${id}\r\n\r\nPOST companies(${t.companyIds[0]})/engChangeNoticeComments HTTP/1.1\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(body)}\r\n`;
  const batch =
    '--b\r\nContent-Type: multipart/mixed; boundary=cs\r\n\r\n' +
    part(1, { engChangeNoticeId: ecn, comment: 'kept?' }) +
    part(2, { engChangeNoticeId: '00000000-0000-0000-0000-000000000000', comment: 'no such ECN' }) +
    '--cs--\r\n--b--\r\n';
  const r = await t.call('POST', '/$batch', { body: batch, headers: { 'Content-Type': 'multipart/mixed; boundary=b' } });
  expect(r.status).toBe(200);
  expect(r.text).not.toContain('HTTP/1.1 201');
  const after = await counts('engChangeNoticeComments', 'engChangeNoticeComments');
  expect(after).toEqual([before[0] + 2, before[0] + 2, before[0] + 2]);

  // A cascade (an ECN's comments and BOM lines go with it) and a multi-row INSERT, by another connection.
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query('DELETE FROM "engChangeNotices" WHERE "id" = $1', [ecn]);
    // A row moved to another company (the service never does; SQL may).
    const [other] = await ecnIds();
    await client.query('UPDATE "engChangeNotices" SET "_companyId" = $1, "number" = $2 WHERE "id" = $3', [t.companyIds[1], 'MOVED-1', other]);
    await client.query(
      `INSERT INTO "engChangeNoticeComments" ("id", "_companyId", "engChangeNoticeId", "lineNo", "comment", "lastModifiedDateTime")
       SELECT gen_random_uuid()::text, "_companyId", "id", 900000 + row_number() OVER (ORDER BY "id"), 'copied', '2026-01-01T00:00:00Z' FROM "engChangeNotices"`,
    );
  } finally {
    await client.end();
  }
  for (const [set, table] of [['engChangeNotices', 'engChangeNotices'], ['engChangeNoticeComments', 'engChangeNoticeComments'], ['engChangeNoticeBOMLines', 'engChangeNoticeBOMLines']] as const) {
    const [page, path, rows] = await counts(set, table);
    expect([set, page, path]).toEqual([set, rows, rows]);
  }
  expect(await setCountsOff(t.service.engine.db, t.service.model)).toEqual([]);
});

test('folding the rows keeps the counts, while writes race it; a fold waits out a migration', async () => {
  const ecns = await ecnIds();
  expect(await foldedRows('engChangeNoticeComments')).toBe(1);
  let writing = true;
  let folds = 0;
  const folding = (async () => {
    while (writing) {
      await compactSetCounts(engine.database);
      folds++;
    }
  })();
  const posts = await Promise.all(
    Array.from({ length: 60 }, (_, i) => t.call('POST', `${base}/engChangeNoticeComments`, { body: { engChangeNoticeId: ecns[i % ecns.length], comment: `race ${i}` } })),
  );
  writing = false;
  await folding;
  expect(posts.map((p) => p.status)).toEqual(posts.map(() => 201));
  expect(folds).toBeGreaterThan(0);
  expect(await setCountsOff(t.service.engine.db, t.service.model)).toEqual([]);
  expect(await foldedRows('engChangeNoticeComments')).toBe(1);

  // While a migration holds its lock, a fold does nothing (it would keep a sum beside a new count).
  // The write comes while the lock is held, so the engine's own fold (a second after a write) finds
  // the lock too, however slow the machine; once it is let go, a fold (ours, or the engine's if its
  // second ran out just then) makes the two rows one.
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK.toString()]);
    const r = await t.call('POST', `${base}/engChangeNoticeComments`, { body: { engChangeNoticeId: ecns[0], comment: 'one more' } });
    expect(r.status).toBe(201);
    expect(await compactSetCounts(engine.database)).toBe(0);
    expect(await keptRows('engChangeNoticeComments')).toBe(2);
    await client.query('ROLLBACK');
  } finally {
    await client.end();
  }
  expect(await foldedRows('engChangeNoticeComments')).toBe(1);
  expect(await setCountsOff(t.service.engine.db, t.service.model)).toEqual([]);
});

test('rows written with the triggers off are found, and the migration counts them again; TRUNCATE empties a set', async () => {
  const ecns = await ecnIds();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query(`SET session_replication_role = 'replica'`);
    await client.query(`INSERT INTO "engChangeNoticeComments" ("id", "_companyId", "engChangeNoticeId", "lineNo", "comment", "lastModifiedDateTime") VALUES (gen_random_uuid()::text, $1, $2, 990001, 'quiet', '2026-01-01T00:00:00Z')`, [t.companyIds[0], ecns[0]]);
  } finally {
    await client.end();
  }
  const off = await setCountsOff(t.service.engine.db, t.service.model);
  expect(off).toHaveLength(1);
  expect(off[0]).toMatch(/^engChangeNoticeComments\/.*: kept (\d+) != rows (\d+)$/);
  await engine.database.transaction((s) => maintainSetCounts(s, t.service.model));
  expect(await setCountsOff(t.service.engine.db, t.service.model)).toEqual([]);

  await t.query('TRUNCATE "engChangeNoticeComments"');
  expect(await counts('engChangeNoticeComments', 'engChangeNoticeComments')).toEqual([0, 0, 0]);
  expect(await keptRows('engChangeNoticeComments')).toBe(0);
});
