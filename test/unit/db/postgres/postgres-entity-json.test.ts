/**
 * src/db/postgres/postgres-entity-json.ts on a real server: each row keeps its entity JSON, and every
 * change that changes what a read shows builds it again, whoever writes: the service, another
 * connection's SQL, a cascade, a counter crossing zero, the rows a lookup reads (one hop, two hops, a
 * deletion), the row itself. After each step the answers of GET are the JSON built from the columns
 * (a `$select` of every property but one is built from them) and no row's stored text is stale. A row
 * written with the triggers off is answered from its columns, and a changed model rebuilds the JSON.
 */
import fs from 'node:fs';
import pg from 'pg';
import os from 'node:os';
import path from 'node:path';
import { createEmptyDatabase, type EmptyDatabase } from '../../../helpers/postgres.js';
import { startTestService, type TestService } from '../../../helpers/test-service.js';
import { staleEntityJson } from '../../../../src/db/postgres/postgres-stale-json.js';
import { FIXTURE_METADATA } from '../../../fixtures/model.js';
import { entityJsonChecks, type Json } from '../../../helpers/entity-json-checks.js';
import { recordingReads } from '../../../helpers/recording-statements.js';

let database: EmptyDatabase;
let t: TestService;
let base: string;
beforeAll(async () => {
  database = await createEmptyDatabase('entity_json');
  t = await startTestService({ dbFile: database.url });
  base = `/companies(${t.companyIds[0]})`;
});
afterAll(async () => {
  await t.close();
  await database.drop();
});

/** A lookup's fallback with what a SQL literal must escape (the trigger's text holds it as one). */
const FALLBACK = `O'Brien \\ $1 "none"`;
const stored = (): Promise<Record<string, number>> => staleEntityJson(t.service.engine.db, t.service.model);
const { ok, expectFresh, taskEmailFollowsItsLookups, existsFollowRelatedRows } = entityJsonChecks(() => t, () => base, stored);

test('the seeded rows keep their JSON, and reads copy it', async () => {
  expect(await stored()).toEqual({});
  const [row] = await t.query('SELECT "_entityJson" FROM "engChangeNotices" ORDER BY "number" LIMIT 1');
  const first = ((await ok('GET', 'engChangeNotices?$top=1')).value as Json[])[0];
  expect(JSON.parse(String(row?.['_entityJson']))).toEqual(first);
});

test('the exact SQL of a read of whole entities: the stored text, the object built from the columns only where there is none', async () => {
  const [c] = await t.query('SELECT "id", "engChangeNoticeId" AS "e" FROM "engChangeNoticeComments" WHERE "_companyId" = ? ORDER BY "id" LIMIT 1', [t.companyIds[0]]);
  const { value: body, reads: recorded } = await recordingReads(t, () => ok('GET', `engChangeNotices(${String(c?.['e'])})/engChangeNoticeComments(${String(c?.['id'])})`));
  const reads = recorded.flatMap((r) => r.steps.map((x) => x.query));
  const q = reads.at(-1);
  const built =
    'CAST((SELECT row_to_json("_j".*) FROM (SELECT CASE WHEN ("t0"."_etagOf" = "t0"."_version") THEN "t0"."_etag" ELSE odata_etag("t0"."_version") END AS "@odata.etag", ' +
    '"t0"."id" AS "id", "t0"."engChangeNoticeId" AS "engChangeNoticeId", "t0"."lineNo" AS "lineNo", "t0"."date" AS "date", "t0"."comment" AS "comment", "t0"."userId" AS "userId", "t0"."lastModifiedDateTime" AS "lastModifiedDateTime") AS "_j") AS text)';
  expect(q?.sql).toBe(
    `SELECT coalesce("t0"."_entityJson", ${built}) AS "_json", "t0"."id" AS "id", "t0"."_version" AS "_version" FROM "engChangeNoticeComments" AS "t0" ` +
      'WHERE ((("t0"."_companyId" = $1) AND ("t0"."engChangeNoticeId" = $2)) AND ("t0"."id" = $3)) ORDER BY "t0"."id" ASC LIMIT $4',
  );
  expect(q?.params).toEqual([t.companyIds[0], c?.['e'], c?.['id'], 1n]);
  const [row] = await t.query('SELECT "_entityJson" FROM "engChangeNoticeComments" WHERE "id" = ?', [c?.['id']]);
  const { ['@odata.context']: _, ...entity } = body;
  expect(JSON.parse(String(row?.['_entityJson']))).toEqual(entity);
});

test('a lookup follows the row it reads: changed by the service, by SQL of another connection, deleted', async () => {
  const [ecn] = (await expectFresh('engChangeNotices', "changeReasonCode ne null")) as [Json];
  const code = ecn['changeReasonCode'] as string;
  const [reason] = ((await ok('GET', `changeReasons?$filter=code eq '${code}'`)).value as Json[]) as [Json];
  await ok('PATCH', `changeReasons(${reason['id'] as string})`, { description: 'Changed by the service' });
  expect((await expectFresh('engChangeNotices', `changeReasonCode eq '${code}'`)).map((e) => e['changeReasonDescription'])).toContain('Changed by the service');
  await t.query('UPDATE "changeReasons" SET "description" = ? WHERE "id" = ?', ['Changed by SQL', reason['id']]);
  expect((await expectFresh('engChangeNotices', `changeReasonCode eq '${code}'`)).every((e) => e['changeReasonDescription'] === 'Changed by SQL')).toBe(true);
  // The ECN's own change of code reads another reason.
  await ok('PATCH', `engChangeNotices(${ecn['id'] as string})`, { changeReasonCode: null });
  expect((await ok('GET', `engChangeNotices(${ecn['id'] as string})`))['changeReasonDescription']).toBeNull();
  await expectFresh('engChangeNotices');
});

test("the e-mail of a task follows its user, the user's contact (two hops) and the work center group, and the user's deletion", () => taskEmailFollowsItsLookups());

test('exists properties follow the related rows, and counting past zero builds nothing again', () => existsFollowRelatedRows());

test('a row moved to another company reads that company\'s rows; a writer\'s own session settings and rights do not change the JSON', async () => {
  const [cronus, other] = t.companyIds as [string, string];
  const [ecn] = await t.query('SELECT "id", "changeReasonCode" AS "code" FROM "engChangeNotices" WHERE "_companyId" = ? AND "changeReasonCode" IS NOT NULL LIMIT 1', [cronus]);
  const code = String(ecn?.['code']);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query('UPDATE "changeReasons" SET "description" = $1 WHERE "_companyId" = $2 AND "code" = $3', ['Only in the other company', other, code]);
    // A number of its own first (the other company has every number), so that the move changes the company alone.
    await client.query('UPDATE "engChangeNotices" SET "number" = $1 WHERE "id" = $2', ['MOVED-1', ecn?.['id']]);
    const moved = await client.query('UPDATE "engChangeNotices" SET "_companyId" = $1 WHERE "id" = $2', [other, ecn?.['id']]);
    expect(moved.rowCount).toBe(1);
    const read = (await t.call('GET', `/companies(${other})/engChangeNotices(${String(ecn?.['id'])})`)).json as Json;
    expect(read['changeReasonDescription']).toBe('Only in the other company');
    expect(await stored()).toEqual({});
    // A session that would print doubles rounded (extra_float_digits = 0) stores what the service builds.
    await client.query('SET extra_float_digits = 0');
    await client.query('UPDATE "engChangeNoticeBOMLines" SET "quantityPer" = 0.1::float8 + 0.2::float8 WHERE "id" = (SELECT "id" FROM "engChangeNoticeBOMLines" LIMIT 1)');
    expect(await stored()).toEqual({});
    // A role that may write change reasons but not ECNs still has the ECNs' JSON built again (the functions run with their owner's rights).
    await client.query('CREATE ROLE "entity_json_limited" NOLOGIN');
    await client.query('GRANT SELECT, UPDATE ON "changeReasons" TO "entity_json_limited"');
    await client.query('SET ROLE "entity_json_limited"');
    await client.query('UPDATE "changeReasons" SET "description" = $1 WHERE "_companyId" = $2 AND "code" = $3', ['Changed by a limited role', other, code]);
    await client.query('RESET ROLE');
    expect(((await t.call('GET', `/companies(${other})/engChangeNotices(${String(ecn?.['id'])})`)).json as Json)['changeReasonDescription']).toBe('Changed by a limited role');
    expect(await stored()).toEqual({});
  } finally {
    await client.query('RESET ROLE').catch(() => undefined);
    await client.query('DROP OWNED BY "entity_json_limited"').catch(() => undefined);
    await client.query('DROP ROLE IF EXISTS "entity_json_limited"').catch(() => undefined);
    await client.end();
  }
});

test('a row written with the triggers off is answered from its columns, and building it again mends it', async () => {
  const ecn = await ok('POST', 'engChangeNotices', { drawingNumber: 'D-QUIET' });
  const id = ecn['id'] as string;
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query(`SET session_replication_role = 'replica'`);
    await client.query('UPDATE "engChangeNotices" SET "drawingNumber" = $1, "_entityJson" = NULL WHERE "id" = $2', ['D-NO-TRIGGER', id]);
  } finally {
    await client.end();
  }
  expect(await stored()).toEqual({ engChangeNotices: 1 });
  expect((await ok('GET', `engChangeNotices(${id})`))['drawingNumber']).toBe('D-NO-TRIGGER');
  expect(((await ok('GET', `engChangeNotices?$filter=id eq ${id}`)).value as Json[])[0]?.['drawingNumber']).toBe('D-NO-TRIGGER');
  await t.query('UPDATE "engChangeNotices" SET "_entityJson" = NULL WHERE "_entityJson" IS NULL');
  expect(await stored()).toEqual({});
});

test('a changed model builds the JSON of its rows again at start-up', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-entity-json-'));
  const metadata = path.join(dir, 'metadata');
  fs.cpSync(FIXTURE_METADATA, metadata, { recursive: true });
  const file = path.join(metadata, 'entities', 'engChangeNoticeComment.json');
  const comment = JSON.parse(fs.readFileSync(file, 'utf8'));
  // A lookup adds no column: only the triggers' statements tell the schema stamp that something changed.
  comment.properties.splice(2, 0, { name: 'drawingNumber', type: 'Edm.String', maxLength: 30, computed: { kind: 'lookup', path: ['engChangeNotice', 'drawingNumber'] } });
  fs.writeFileSync(file, JSON.stringify(comment));
  // A model value written into the trigger's text as a literal: quotes, a backslash, a placeholder's look.
  const ecnFile = path.join(metadata, 'entities', 'engChangeNotice.json');
  const ecnDoc = JSON.parse(fs.readFileSync(ecnFile, 'utf8'));
  ecnDoc.properties.push({ name: 'reasonOrNote', type: 'Edm.String', maxLength: 80, computed: { kind: 'firstNonEmpty', paths: [['changeReason', 'description']], fallback: FALLBACK } });
  fs.writeFileSync(ecnFile, JSON.stringify(ecnDoc));
  // A database of its own: the suite's service keeps the model it started with.
  const own = await createEmptyDatabase('entity_json_model');
  await (await startTestService({ dbFile: own.url })).close();
  const other = await startTestService({ dbFile: own.url, metadataDir: metadata, seed: false });
  try {
    const [c] = ((await other.call('GET', `${base}/engChangeNoticeComments?$top=1`)).json as { value: Json[] }).value as [Json];
    expect(Object.keys(c).slice(0, 4)).toEqual(['@odata.etag', 'id', 'engChangeNoticeId', 'drawingNumber']);
    const ecn = (await other.call('GET', `${base}/engChangeNotices(${c['engChangeNoticeId'] as string})`)).json as Json;
    expect(c['drawingNumber']).toBe(ecn['drawingNumber']);
    expect(await staleEntityJson(other.service.engine.db, other.service.model)).toEqual({});
    // ...and the new lookup follows the ECN it reads.
    await other.call('PATCH', `${base}/engChangeNotices(${ecn['id'] as string})`, { body: { drawingNumber: 'D-FOLLOWED' }, headers: { 'If-Match': '*' } });
    const again = (await other.call('GET', `${base}/engChangeNotices(${ecn['id'] as string})/engChangeNoticeComments(${c['id'] as string})`)).json as Json;
    expect(again['drawingNumber']).toBe('D-FOLLOWED');
    const plain = (await other.call('POST', `${base}/engChangeNotices`, { body: { drawingNumber: 'D-NO-REASON' } })).json as Json;
    expect(plain['changeReasonCode']).toBeNull();
    expect(plain['reasonOrNote']).toBe(FALLBACK);
    expect(((await other.call('GET', `${base}/engChangeNotices(${plain['id'] as string})`)).json as Json)['reasonOrNote']).toBe(FALLBACK);
    expect(await staleEntityJson(other.service.engine.db, other.service.model)).toEqual({});
  } finally {
    await other.close();
    await own.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
