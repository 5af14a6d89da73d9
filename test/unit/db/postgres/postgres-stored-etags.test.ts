/**
 * Stored ETags on PostgreSQL (db/sqlite/sqlite-stored-etags.ts): a start-up whose schema is up to date (no DDL)
 * still stores the ETags of rows another program wrote without them, as SQLite's start-up does, so
 * their reads copy the text instead of computing it; the ETag a client sees does not change. A dry
 * run (`ecn-odata check`) stores nothing.
 */
import { createEmptyDatabase, type EmptyDatabase } from '../../../helpers/postgres.js';
import { startTestService, type TestService } from '../../../helpers/test-service.js';

let database: EmptyDatabase;
let t: TestService;
beforeAll(async () => {
  database = await createEmptyDatabase('stored_etags');
  t = await startTestService({ dbFile: database.url });
});
afterAll(async () => {
  await t.close();
  await database.drop();
});

type Json = Record<string, unknown>;
const unstamped = async (): Promise<number> => Number((await t.query('SELECT count(*) AS "n" FROM "engChangeNotices" WHERE "_etagOf" IS DISTINCT FROM "_version"'))[0]?.['n']);

test('a start-up with the schema up to date stores the ETags another program left out; a dry run stores none', async () => {
  const base = `/companies(${t.companyIds[0]})`;
  const page = async (): Promise<string[]> => {
    const r = await t.call('GET', `${base}/engChangeNotices?$select=id&$orderby=id`);
    expect(r.status).toBe(200);
    return ((r.json as Json)['value'] as Json[]).map((e) => String(e['@odata.etag']));
  };
  const etags = await page();
  expect(etags.length).toBeGreaterThan(0);
  expect(await unstamped()).toBe(0);
  // Another program's writes: rows without their stored ETag (and one whose stored ETag is stale).
  await t.query('UPDATE "engChangeNotices" SET "_etag" = NULL, "_etagOf" = NULL');
  await t.query('UPDATE "engChangeNotices" SET "_etagOf" = "_version" - 1, "_etag" = \'W/"stale"\' WHERE "id" = (SELECT min("id") FROM "engChangeNotices")');
  const rows = await unstamped();
  // Every company's rows.
  expect(rows).toBe(Number((await t.query('SELECT count(*) AS "n" FROM "engChangeNotices"'))[0]?.['n']));
  expect(rows).toBeGreaterThanOrEqual(etags.length);
  // Computed meanwhile: the same ETags.
  expect(await page()).toEqual(etags);

  expect((await t.service.engine.migrate(t.service.model, { dryRun: true })).stampedEtags).toMatchObject({ engChangeNotices: rows });
  expect(await unstamped()).toBe(rows);

  const report = await t.service.engine.migrate(t.service.model);
  expect(report).toMatchObject({ createdTables: [], addedColumns: [], droppedIndexes: [], stampedEtags: { engChangeNotices: rows } });
  expect(await unstamped()).toBe(0);
  expect(await page()).toEqual(etags);
  // Nothing left to store: the next start-up changes nothing.
  expect((await t.service.engine.migrate(t.service.model)).stampedEtags).toEqual({});
});
