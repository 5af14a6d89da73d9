/**
 * Related-row counters (the hidden columns `exists` properties read): kept right by triggers through
 * inserts, deletes, moves, cascades and writes from another connection; built from the rows when a
 * database gains a counter; rebuilt when the model changes its definition.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { loadModel } from '../../../../src/edm/load-model.js';
import { openDatabase, type Database } from '../../../../src/db/sqlite/sqlite-database.js';
import { migrate } from '../../../../src/db/sqlite/sqlite-migrate.js';
import { FIXTURE_METADATA } from '../../../fixtures/model.js';
import { rowCountersOf } from '../../../../src/db/row-counters.js';
import { counterTriggers, recountSql } from '../../../../src/db/sqlite/sqlite-row-counters.js';

const repoMetadata = FIXTURE_METADATA;
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'row-counters-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const NOW = '2026-01-01T00:00:00.000Z';

function company(db: Database | BetterSqlite3.Database, id: string): void {
  const raw = 'raw' in db ? db.raw : db;
  raw.prepare(`INSERT INTO "companies" ("id", "name", "_version") VALUES (?, ?, 1)`).run(id, id.toUpperCase());
}
function ecn(raw: BetterSqlite3.Database, id: string, companyId = 'c1'): void {
  raw.prepare(`INSERT INTO "engChangeNotices" ("id", "_companyId", "number", "lastModifiedDateTime", "_version") VALUES (?, ?, ?, ?, 1)`).run(id, companyId, `N-${id}`, NOW);
}
let line = 0;
function bomLine(raw: BetterSqlite3.Database, ecnId: string, companyId = 'c1'): string {
  const id = `b${++line}`;
  raw.prepare(`INSERT INTO "engChangeNoticeBOMLines" ("id", "_companyId", "engChangeNoticeId", "lineNo", "lastModifiedDateTime", "_version") VALUES (?, ?, ?, ?, ?, 1)`).run(id, companyId, ecnId, line, NOW);
  return id;
}
/** counter vs. count(*) for every ECN: [id, counter, actual] where they differ. */
function mismatches(raw: BetterSqlite3.Database): unknown[] {
  return raw
    .prepare(
      `SELECT e."id", e."_count_engChangeNoticeBOMLines" AS counter, (SELECT count(*) FROM "engChangeNoticeBOMLines" b WHERE b."engChangeNoticeId" = e."id" AND b."_companyId" = e."_companyId") AS actual
       FROM "engChangeNotices" e WHERE counter <> actual`,
    )
    .all();
}
const counter = (raw: BetterSqlite3.Database, id: string): number => (raw.prepare(`SELECT "_count_engChangeNoticeBOMLines" AS n FROM "engChangeNotices" WHERE "id" = ?`).get(id) as { n: number }).n;

test('the triggers of a counter, and its recount, exactly', async () => {
  const model = loadModel(repoMetadata);
  const [bom] = rowCountersOf(model.entityTypeByName.get('engChangeNotice')!).filter((c) => c.nav.name === 'engChangeNoticeBOMLines');
  expect(counterTriggers(bom!)).toEqual([
    'CREATE TRIGGER "engChangeNotices_count_engChangeNoticeBOMLines_insert" AFTER INSERT ON "engChangeNoticeBOMLines" BEGIN UPDATE "engChangeNotices" SET "_count_engChangeNoticeBOMLines" = "_count_engChangeNoticeBOMLines" + 1 WHERE "id" = NEW."engChangeNoticeId" AND "_companyId" = NEW."_companyId"; END',
    'CREATE TRIGGER "engChangeNotices_count_engChangeNoticeBOMLines_delete" AFTER DELETE ON "engChangeNoticeBOMLines" BEGIN UPDATE "engChangeNotices" SET "_count_engChangeNoticeBOMLines" = "_count_engChangeNoticeBOMLines" - 1 WHERE "id" = OLD."engChangeNoticeId" AND "_companyId" = OLD."_companyId"; END',
    'CREATE TRIGGER "engChangeNotices_count_engChangeNoticeBOMLines_update" AFTER UPDATE OF "engChangeNoticeId", "_companyId" ON "engChangeNoticeBOMLines" WHEN OLD."engChangeNoticeId" IS NOT NEW."engChangeNoticeId" OR OLD."_companyId" IS NOT NEW."_companyId" BEGIN UPDATE "engChangeNotices" SET "_count_engChangeNoticeBOMLines" = "_count_engChangeNoticeBOMLines" - 1 WHERE "id" = OLD."engChangeNoticeId" AND "_companyId" = OLD."_companyId"; UPDATE "engChangeNotices" SET "_count_engChangeNoticeBOMLines" = "_count_engChangeNoticeBOMLines" + 1 WHERE "id" = NEW."engChangeNoticeId" AND "_companyId" = NEW."_companyId"; END',
  ]);
  expect(recountSql(bom!)).toBe(
    'UPDATE "engChangeNotices" SET "_count_engChangeNoticeBOMLines" = (SELECT count(*) FROM "engChangeNoticeBOMLines" AS "r" WHERE "r"."engChangeNoticeId" = "engChangeNotices"."id" AND "r"."_companyId" = "engChangeNotices"."_companyId")',
  );
});

test('inserts, deletes, moves and cascades keep the counts, from any connection', async () => {
  const file = path.join(dir, 'db.sqlite');
  const db = openDatabase(file);
  migrate(db, loadModel(repoMetadata));
  company(db, 'c1');
  const raw = db.raw;
  ecn(raw, 'e1');
  ecn(raw, 'e2');
  ecn(raw, 'e3');
  const lines = [bomLine(raw, 'e1'), bomLine(raw, 'e1'), bomLine(raw, 'e2')];
  expect([counter(raw, 'e1'), counter(raw, 'e2'), counter(raw, 'e3')]).toEqual([2, 1, 0]);
  raw.prepare(`UPDATE "engChangeNoticeBOMLines" SET "engChangeNoticeId" = 'e3' WHERE "id" = ?`).run(lines[0]);
  raw.prepare(`UPDATE "engChangeNoticeBOMLines" SET "quantityPer" = 2 WHERE "id" = ?`).run(lines[1]); // not a move
  raw.prepare(`DELETE FROM "engChangeNoticeBOMLines" WHERE "id" = ?`).run(lines[2]);
  expect([counter(raw, 'e1'), counter(raw, 'e2'), counter(raw, 'e3')]).toEqual([1, 0, 1]);
  // another connection (the triggers are in the database, not in the service)
  const other = new BetterSqlite3(file);
  other.pragma('foreign_keys = ON');
  bomLine(other, 'e2');
  bomLine(other, 'e2');
  await other.close();
  expect(counter(raw, 'e2')).toBe(2);
  // a row whose parent is deleted goes with it (cascade): the remaining counts stay right
  raw.prepare(`DELETE FROM "engChangeNotices" WHERE "id" = 'e3'`).run();
  expect(mismatches(raw)).toEqual([]);
  db.close();
});

test('a database that gains a counter counts its existing rows; a changed definition is rebuilt', () => {
  // the model without the exists properties
  const meta = fs.mkdtempSync(path.join(os.tmpdir(), 'row-counters-meta-'));
  try {
    fs.cpSync(repoMetadata, meta, { recursive: true });
    const file = path.join(meta, 'entities', 'engChangeNotice.json');
    const original = fs.readFileSync(file, 'utf8');
    const doc = JSON.parse(original) as { properties: { name: string }[] };
    doc.properties = doc.properties.filter((p) => p.name !== 'bomExists' && p.name !== 'bomCommentExists');
    fs.writeFileSync(file, JSON.stringify(doc));
    const dbFile = path.join(dir, 'db.sqlite');
    const db1 = openDatabase(dbFile);
    migrate(db1, loadModel(meta));
    company(db1, 'c1');
    ecn(db1.raw, 'e1');
    ecn(db1.raw, 'e2');
    bomLine(db1.raw, 'e1');
    bomLine(db1.raw, 'e1');
    db1.close();

    fs.writeFileSync(file, original);
    const db2 = openDatabase(dbFile);
    const report = migrate(db2, loadModel(meta));
    expect(report.addedColumns).toContain('engChangeNotices._count_engChangeNoticeBOMLines');
    expect(report.recountedCounters.sort()).toEqual(['engChangeNotices._count_engChangeNoticeBOMLines', 'engChangeNotices._count_engChangeNoticeComments']);
    expect([counter(db2.raw, 'e1'), counter(db2.raw, 'e2')]).toEqual([2, 0]);
    // a definition that differs from the stored one (an older version of the triggers) is rebuilt
    db2.raw.prepare(`UPDATE "engChangeNotices" SET "_count_engChangeNoticeBOMLines" = 99`).run();
    db2.raw.prepare(`UPDATE "_rowCounters" SET "definition" = 'old' WHERE "column" = '_count_engChangeNoticeBOMLines'`).run();
    expect(migrate(db2, loadModel(meta)).recountedCounters).toEqual(['engChangeNotices._count_engChangeNoticeBOMLines']);
    expect(mismatches(db2.raw)).toEqual([]);
    db2.close();
  } finally {
    fs.rmSync(meta, { recursive: true, force: true });
  }
});
