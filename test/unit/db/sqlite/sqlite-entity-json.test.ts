/**
 * src/db/sqlite/sqlite-entity-json.ts: each row keeps its entity JSON on SQLite, and every change that
 * changes what a read shows builds it again, whoever writes: the service, a connection without the
 * service's functions (a sqlite3 shell), a cascade, a counter crossing zero, the rows a lookup reads
 * (one hop, two hops, a deletion). After each step the answers of GET are the JSON built from the
 * columns (a `$select` of every property but one is built from them) and no row's stored text is
 * stale. Values only the service's functions spell keep no text, and are answered from the columns.
 * A changed model rebuilds the JSON at start-up.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startTestService, type TestService } from '../../../helpers/test-service.js';
import { staleSqliteEntityJson } from '../../../../src/db/sqlite/sqlite-entity-json.js';
import { formatEtag } from '../../../../src/edm/etag.js';
import { FIXTURE_METADATA } from '../../../fixtures/model.js';
import { entityJsonChecks, type Json } from '../../../helpers/entity-json-checks.js';
import { recordingReads } from '../../../helpers/recording-statements.js';
import { importRows } from '../../../../src/data/import-rows.js';
import { readDataFile } from '../../../../src/data/data-file.js';
import { principal } from '../../data/import-files.js';

let dir: string;
let file: string;
let t: TestService;
/** Another connection to the file with none of the service's functions, as a sqlite3 shell has. */
let shell: Database.Database;
let base: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-sqlite-json-'));
  file = path.join(dir, 'db.sqlite');
  t = await startTestService({ dbFile: file, engine: 'sqlite' });
  base = `/companies(${t.companyIds[0]})`;
  shell = new Database(file);
  shell.pragma('busy_timeout = 5000');
});
afterAll(async () => {
  shell.close();
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const stale = (): Promise<Record<string, number>> => staleSqliteEntityJson(t.service.engine.db, t.service.model);
const { ok, expectFresh, taskEmailFollowsItsLookups, existsFollowRelatedRows } = entityJsonChecks(() => t, () => base, stale);
const kept = (table: string, id: unknown): unknown => (shell.prepare(`SELECT "_entityJson" AS j FROM "${table}" WHERE "id" = ?`).get(id) as { j: unknown }).j;

test('no trigger names a function of the service: a connection without them writes every table', () => {
  const triggers = shell.prepare(`SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND name LIKE '\\_json%' ESCAPE '\\'`).all() as { name: string; sql: string }[];
  expect(triggers.length).toBeGreaterThan(10);
  expect(triggers.filter((x) => /odata_/.test(x.sql)).map((x) => x.name)).toEqual([]);
});

test('the seeded rows keep their JSON, and reads copy it', async () => {
  expect(await stale()).toEqual({});
  const first = ((await ok('GET', 'engChangeNotices?$top=1')).value as Json[])[0] as Json;
  expect(JSON.parse(String(kept('engChangeNotices', first['id'])))).toEqual(first);
  const none = shell.prepare(`SELECT count(*) AS n FROM "engChangeNoticeComments" WHERE "_entityJson" IS NULL`).get() as { n: number };
  expect(none.n).toBe(0);
});

test('the exact SQL of a read of one entity: the stored text, the object built from the columns only where there is none', async () => {
  const [c] = await t.query('SELECT "id", "engChangeNoticeId" AS "e" FROM "engChangeNoticeComments" WHERE "_companyId" = ? ORDER BY "id" LIMIT 1', [t.companyIds[0]]);
  const { value: body, reads: recorded } = await recordingReads(t, () => ok('GET', `engChangeNotices(${String(c?.['e'])})/engChangeNoticeComments(${String(c?.['id'])})`));
  const reads = recorded.flatMap((r) => r.steps.map((x) => x.query));
  const built =
    `json_object('@odata.etag', CASE WHEN ("t0"."_etagOf" = "t0"."_version") THEN "t0"."_etag" ELSE odata_etag("t0"."_version") END, ` +
    `'id', "t0"."id", 'engChangeNoticeId', "t0"."engChangeNoticeId", 'lineNo', "t0"."lineNo", 'date', "t0"."date", 'comment', "t0"."comment", 'userId', "t0"."userId", 'lastModifiedDateTime', "t0"."lastModifiedDateTime")`;
  expect(reads.at(-1)?.sql).toContain(`coalesce("t0"."_entityJson", ${built})`);
  const { ['@odata.context']: _, ...entity } = body;
  expect(JSON.parse(String(kept('engChangeNoticeComments', c?.['id'])))).toEqual(entity);
});

test('a lookup follows the row it reads: changed by the service, by a connection without the service\'s functions, deleted', async () => {
  const [ecn] = (await expectFresh('engChangeNotices', 'changeReasonCode ne null')) as [Json];
  const code = ecn['changeReasonCode'] as string;
  const [reason] = ((await ok('GET', `changeReasons?$filter=code eq '${code}'`)).value as Json[]) as [Json];
  await ok('PATCH', `changeReasons(${reason['id'] as string})`, { description: 'Changed by the service' });
  expect((await expectFresh('engChangeNotices', `changeReasonCode eq '${code}'`)).map((e) => e['changeReasonDescription'])).toContain('Changed by the service');
  shell.prepare('UPDATE "changeReasons" SET "description" = ? WHERE "id" = ?').run('Changed by the shell', reason['id']);
  expect((await expectFresh('engChangeNotices', `changeReasonCode eq '${code}'`)).every((e) => e['changeReasonDescription'] === 'Changed by the shell')).toBe(true);
  shell.prepare('DELETE FROM "changeReasons" WHERE "id" = ?').run(reason['id']);
  expect((await expectFresh('engChangeNotices', `changeReasonCode eq '${code}'`)).every((e) => e['changeReasonDescription'] === null)).toBe(true);
  // The ECN's own change of code reads another reason.
  await ok('PATCH', `engChangeNotices(${ecn['id'] as string})`, { changeReasonCode: null });
  expect((await ok('GET', `engChangeNotices(${ecn['id'] as string})`))['changeReasonDescription']).toBeNull();
  await expectFresh('engChangeNotices');
});

test("the e-mail of a task follows its user, the user's contact (two hops) and the work center group, and the user's deletion", () => taskEmailFollowsItsLookups());

test('exists properties follow the related rows, and counting past zero builds nothing again', () => existsFollowRelatedRows());

test("values only the service's functions spell keep no text, are answered from the columns, and a later write keeps it again", async () => {
  const [line] = (await expectFresh('engChangeNoticeBOMLines')) as [Json];
  const id = line['id'] as string;
  // A decimal SQL does not spell as JavaScript does, written by the shell.
  shell.prepare('UPDATE "engChangeNoticeBOMLines" SET "quantityPer" = ? WHERE "id" = ?').run(1e-7, id);
  expect(kept('engChangeNoticeBOMLines', id)).toBeNull();
  expect((await ok('GET', `engChangeNoticeBOMLines?$filter=id eq ${id}`)).value).toEqual([expect.objectContaining({ id, quantityPer: 1e-7 })]);
  const text = (await t.call('GET', `${base}/engChangeNoticeBOMLines(${id})`)).text;
  expect(text).toContain('"quantityPer":1e-7,');
  // A version the shell changed without its ETag: the stored ETag is another version's.
  shell.prepare('UPDATE "engChangeNoticeBOMLines" SET "quantityPer" = 2.5, "_version" = "_version" + 1 WHERE "id" = ?').run(id);
  expect(kept('engChangeNoticeBOMLines', id)).toBeNull();
  const { _version } = shell.prepare('SELECT "_version" FROM "engChangeNoticeBOMLines" WHERE "id" = ?').get(id) as { _version: number };
  expect((await ok('GET', `engChangeNoticeBOMLines(${id})`))['@odata.etag']).toBe(formatEtag(_version));
  await expectFresh('engChangeNoticeBOMLines');
  // The service's write stores the ETag, and the row keeps its JSON again.
  await ok('PATCH', `engChangeNoticeBOMLines(${id})`, { description: 'kept again' });
  expect(JSON.parse(String(kept('engChangeNoticeBOMLines', id)))).toMatchObject({ id, quantityPer: 2.5, description: 'kept again' });
  await expectFresh('engChangeNoticeBOMLines');
});

test('a connection with recursive_triggers on writes too: a trigger does not fire itself again', () => {
  const conn = new Database(file);
  try {
    conn.pragma('busy_timeout = 5000');
    conn.pragma('recursive_triggers = ON');
    const { id } = conn.prepare('SELECT "id" FROM "engChangeNoticeBOMLines" LIMIT 1').get() as { id: string };
    // A value the trigger cannot spell (NULL), then one it can: neither loops.
    conn.prepare('UPDATE "engChangeNoticeBOMLines" SET "quantityPer" = ? WHERE "id" = ?').run(3e-9, id);
    expect(kept('engChangeNoticeBOMLines', id)).toBeNull();
    conn.prepare('UPDATE "engChangeNoticeBOMLines" SET "quantityPer" = ? WHERE "id" = ?').run(4, id);
    expect(JSON.parse(String(kept('engChangeNoticeBOMLines', id)))).toMatchObject({ id, quantityPer: 4 });
    conn.prepare('UPDATE "changeReasons" SET "description" = "description" || ?').run('!');
  } finally {
    conn.close();
  }
});

test('rows a bulk import wrote keep no JSON until start-up stores their ETags, which builds it', async () => {
  const type = t.service.model.entityTypeBySet.get('engChangeNotices');
  if (type === undefined) throw new Error('engChangeNotices');
  const csvFile = path.join(dir, 'bulk.csv');
  const [one, two] = (shell.prepare('SELECT "code" FROM "changeReasons" WHERE "_companyId" = ? ORDER BY "code" LIMIT 2').all(t.companyIds[0]) as { code: string }[]).map((r) => r.code);
  fs.writeFileSync(csvFile, `status,changeReasonCode,drawingNumber\nNew,${one ?? ''},BULK-A\nNew,${two ?? ''},BULK-B\n`);
  const report = await importRows(t.service.context, type, readDataFile(csvFile, type), { mode: 'skip', principal, companyId: t.companyIds[0], bulk: true });
  expect(report.imported).toBe(2);
  const rows = () => shell.prepare(`SELECT "id", "_entityJson" AS j FROM "engChangeNotices" WHERE "drawingNumber" LIKE 'BULK-%' ORDER BY "drawingNumber"`).all() as { id: string; j: string | null }[];
  expect(rows().map((r) => r.j)).toEqual([null, null]);
  await expectFresh('engChangeNotices', "startswith(drawingNumber,'BULK-')");
  // Start-up (another service on the file) stores the ETags, and the UPDATE builds the JSON.
  const next = await startTestService({ dbFile: file, engine: 'sqlite', seed: false });
  try {
    const built = rows();
    expect(built.every((r) => r.j !== null)).toBe(true);
    const got = (await next.call('GET', `${base}/engChangeNotices(${built[0]?.id ?? ''})`)).json as Json;
    const { ['@odata.context']: _, ...entity } = got;
    expect(JSON.parse(String(built[0]?.j))).toEqual(entity);
  } finally {
    await next.close();
  }
  expect(await stale()).toEqual({});
});

test('a changed model builds the JSON of its rows again at start-up, and a lookup it drops leaves no trigger', async () => {
  const own = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-sqlite-json-model-'));
  const metadata = path.join(own, 'metadata');
  fs.cpSync(FIXTURE_METADATA, metadata, { recursive: true });
  const commentFile = path.join(metadata, 'entities', 'engChangeNoticeComment.json');
  const comment = JSON.parse(fs.readFileSync(commentFile, 'utf8'));
  comment.properties.splice(2, 0, { name: 'drawingNumber', type: 'Edm.String', maxLength: 30, computed: { kind: 'lookup', path: ['engChangeNotice', 'drawingNumber'] } });
  fs.writeFileSync(commentFile, JSON.stringify(comment));
  // A model value written into the trigger's text as a literal: quotes, a question mark.
  const fallback = `O'Brien ? "none"`;
  const ecnFile = path.join(metadata, 'entities', 'engChangeNotice.json');
  const ecnDoc = JSON.parse(fs.readFileSync(ecnFile, 'utf8'));
  ecnDoc.properties.push({ name: 'reasonOrNote', type: 'Edm.String', maxLength: 80, computed: { kind: 'firstNonEmpty', paths: [['changeReason', 'description']], fallback } });
  fs.writeFileSync(ecnFile, JSON.stringify(ecnDoc));
  const db = path.join(own, 'db.sqlite');
  await (await startTestService({ dbFile: db, engine: 'sqlite' })).close();
  const other = await startTestService({ dbFile: db, engine: 'sqlite', metadataDir: metadata, seed: false });
  try {
    const [c] = ((await other.call('GET', `${base}/engChangeNoticeComments?$top=1`)).json as { value: Json[] }).value as [Json];
    expect(Object.keys(c).slice(0, 4)).toEqual(['@odata.etag', 'id', 'engChangeNoticeId', 'drawingNumber']);
    const ecn = (await other.call('GET', `${base}/engChangeNotices(${c['engChangeNoticeId'] as string})`)).json as Json;
    expect(c['drawingNumber']).toBe(ecn['drawingNumber']);
    expect(await staleSqliteEntityJson(other.service.engine.db, other.service.model)).toEqual({});
    await other.call('PATCH', `${base}/engChangeNotices(${ecn['id'] as string})`, { body: { drawingNumber: 'D-FOLLOWED' }, headers: { 'If-Match': '*' } });
    const again = (await other.call('GET', `${base}/engChangeNotices(${ecn['id'] as string})/engChangeNoticeComments(${c['id'] as string})`)).json as Json;
    expect(again['drawingNumber']).toBe('D-FOLLOWED');
    const plain = (await other.call('POST', `${base}/engChangeNotices`, { body: { drawingNumber: 'D-NO-REASON' } })).json as Json;
    expect(plain['reasonOrNote']).toBe(fallback);
    expect(((await other.call('GET', `${base}/engChangeNotices(${plain['id'] as string})`)).json as Json)['reasonOrNote']).toBe(fallback);
    expect(await staleSqliteEntityJson(other.service.engine.db, other.service.model)).toEqual({});
  } finally {
    await other.close();
  }
  // Back to the model without the comment's lookup: its triggers go, the comments' JSON is built again.
  const back = await startTestService({ dbFile: db, engine: 'sqlite', seed: false });
  try {
    const conn = new Database(db, { readonly: true });
    const names = (conn.prepare(`SELECT name FROM sqlite_schema WHERE type = 'trigger'`).all() as { name: string }[]).map((r) => r.name);
    conn.close();
    expect(names.filter((n) => n.startsWith('_jsonlookup_engChangeNoticeComments'))).toEqual([]);
    const [c] = ((await back.call('GET', `${base}/engChangeNoticeComments?$top=1`)).json as { value: Json[] }).value as [Json];
    expect(c).not.toHaveProperty('drawingNumber');
    expect(await staleSqliteEntityJson(back.service.engine.db, back.service.model)).toEqual({});
  } finally {
    await back.close();
    fs.rmSync(own, { recursive: true, force: true });
  }
});
