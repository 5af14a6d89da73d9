import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModel } from '../../../../src/edm/load-model.js';
import { openDatabase } from '../../../../src/db/sqlite/sqlite-database.js';
import { migrate } from '../../../../src/db/sqlite/sqlite-migrate.js';
import { MigrationError } from '../../../../src/db/migration.js';
import { FIXTURE_METADATA } from '../../../fixtures/model.js';
import { createTableSql } from '../../../../src/db/sqlite/sqlite-ddl.js';

const repoMetadata = FIXTURE_METADATA;

function copyMetadata(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-meta-'));
  fs.cpSync(repoMetadata, dir, { recursive: true });
  return dir;
}

/** A copy of the model and a database file migrated to it, with company `c1` when `withCompany`; the caller closes `db1`. */
function migratedCopy(withCompany: boolean): { dir: string; dbFile: string; db1: ReturnType<typeof openDatabase> } {
  const dir = copyMetadata();
  const dbFile = path.join(dir, 'db.sqlite');
  const db1 = openDatabase(dbFile);
  migrate(db1, loadModel(dir));
  if (withCompany) db1.raw.prepare(`INSERT INTO "companies" ("id", "name", "_version") VALUES ('c1', 'C1', 1)`).run();
  return { dir, dbFile, db1 };
}

function editEntity(dir: string, name: string, edit: (e: { properties: Record<string, unknown>[] }) => void): void {
  const file = path.join(dir, 'entities', `${name}.json`);
  const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { properties: Record<string, unknown>[] };
  edit(json);
  fs.writeFileSync(file, JSON.stringify(json, null, 2));
}

describe('schema from the model', () => {
  test('tables are STRICT, have the hidden company and version columns, and cascade containment', () => {
    const model = loadModel(repoMetadata);
    const comment = model.entityTypeByName.get('engChangeNoticeComment');
    expect(comment).toBeDefined();
    const sql = createTableSql(model, comment!);
    expect(sql).toContain('"_companyId" TEXT NOT NULL REFERENCES "companies"("id") ON DELETE CASCADE');
    expect(sql).toContain('"engChangeNoticeId" TEXT NOT NULL REFERENCES "engChangeNotices"("id") ON DELETE CASCADE');
    expect(sql).toContain('"_version" INTEGER NOT NULL DEFAULT 0');
    expect(sql).toMatch(/\) STRICT$/);
  });

  test('every model table exists after migrate, and computed properties have no column', async () => {
    const model = loadModel(repoMetadata);
    const db = openDatabase(':memory:');
    const report = migrate(db, model);
    expect(report.createdTables.sort()).toEqual(model.entityTypes.map((t) => t.table).sort());
    const cols = (db.raw.prepare(`SELECT name FROM pragma_table_info('engChangeNotices')`).all() as { name: string }[]).map((c) => c.name);
    expect(cols).toContain('number');
    expect(cols).not.toContain('bomExists');
    // ... but the related-row count it reads is kept in a hidden column
    expect(cols).toContain('_count_engChangeNoticeBOMLines');
    const indexes = (db.raw.prepare(`SELECT name FROM sqlite_master WHERE type='index' AND tbl_name='engChangeNoticeComments'`).all() as { name: string }[]).map((i) => i.name);
    expect(indexes).toContain('engChangeNoticeComments_ix_engChangeNoticeId');
    // A second run changes nothing.
    expect(migrate(db, model)).toEqual({ createdTables: [], addedColumns: [], droppedIndexes: [], recountedCounters: [], stampedEtags: {}, rebuiltEntityJson: [] });
    db.close();
  });

  test('a new nullable field and a new entity are added to an existing database without losing rows', () => {
    const { dir, dbFile, db1 } = migratedCopy(true);
    db1.raw.prepare(`INSERT INTO "changeReasons" ("id", "_companyId", "code", "lastModifiedDateTime", "_version") VALUES ('r1', 'c1', 'X', '2026-01-01T00:00:00.000Z', 1)`).run();
    db1.close();

    editEntity(dir, 'changeReason', (e) => e.properties.splice(2, 0, { name: 'category', type: 'Edm.String', maxLength: 20 }));
    const db2 = openDatabase(dbFile);
    const report = migrate(db2, loadModel(dir));
    expect(report.addedColumns).toEqual(['changeReasons.category']);
    expect(db2.raw.prepare(`SELECT "code", "category" FROM "changeReasons"`).all()).toEqual([{ code: 'X', category: null }]);
    db2.close();
  });

  test('a new required field without default on an existing table stops with an explanation', () => {
    const { dir, dbFile, db1 } = migratedCopy(false);
    db1.close();
    editEntity(dir, 'contact', (e) => e.properties.splice(2, 0, { name: 'phone', type: 'Edm.String', nullable: false }));
    const db2 = openDatabase(dbFile);
    expect(() => migrate(db2, loadModel(dir))).toThrow(MigrationError);
    expect(() => migrate(db2, loadModel(dir))).toThrow(/Make it nullable/);
    db2.close();
  });

  test('an alternate key is a unique index per company, which replaces the plain index on the same columns', async () => {
    const model = loadModel(repoMetadata);
    const db = openDatabase(':memory:');
    migrate(db, model);
    const indexes = db.raw.prepare(`SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'engChangeOrderTasks' AND sql IS NOT NULL ORDER BY name`).all() as { name: string; sql: string }[];
    expect(indexes.find((i) => i.name === 'engChangeOrderTasks_u_companyId_engChangeOrderId_lineNo')?.sql).toBe(
      'CREATE UNIQUE INDEX "engChangeOrderTasks_u_companyId_engChangeOrderId_lineNo" ON "engChangeOrderTasks"("_companyId", "engChangeOrderId", "lineNo")',
    );
    expect(indexes.map((i) => i.name)).not.toContain('engChangeOrderTasks_ix_companyId_engChangeOrderId_lineNo');
    // No (company, key) index where another serves the default order; one where the order is the key.
    const names = (table: string): string[] => (db.raw.prepare(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`).all(table) as { name: string }[]).map((i) => i.name).sort();
    // The model's own index (`indexes`) on the status ECNs are grouped by.
    expect(names('engChangeNotices')).toEqual(['engChangeNotices_ix_companyId_changeReasonCode', 'engChangeNotices_ix_companyId_status', 'engChangeNotices_u_companyId_number']);
    expect(names('engChangeOrderTaskPredecessors')).toEqual(['engChangeOrderTaskPredecessors_ix_companyId_id', 'engChangeOrderTaskPredecessors_ix_predecessorTaskId', 'engChangeOrderTaskPredecessors_ix_taskId']);
    // A default order that is not unique (comments by ECN and line number) is indexed as it is: the
    // index ends with the rowid, which an $expand breaks its ties by, so each ECN's comments need no sort
    // (PostgreSQL's index ends with the key instead: postgres-migrate-indexes.test.ts).
    expect(names('engChangeNoticeComments')).toEqual(['engChangeNoticeComments_ix_companyId_engChangeNoticeId_lineNo', 'engChangeNoticeComments_ix_engChangeNoticeId']);
    const plan = db.raw.prepare(`EXPLAIN QUERY PLAN SELECT "comment" FROM "engChangeNoticeComments" WHERE "_companyId" = ? AND "engChangeNoticeId" = ? ORDER BY "engChangeNoticeId", "lineNo", "rowid"`).all('c', 'e') as { detail: string }[];
    expect(plan.map((r) => r.detail)).toEqual(['SEARCH engChangeNoticeComments USING INDEX engChangeNoticeComments_ix_companyId_engChangeNoticeId_lineNo (_companyId=? AND engChangeNoticeId=?)']);
    db.close();
  });

  test('an index an earlier version derived is dropped; indexes not named like derived ones stay', async () => {
    const db = openDatabase(':memory:');
    const model = loadModel(repoMetadata);
    migrate(db, model);
    // Earlier versions derived a plain index the alternate key now covers, and a (company, key) index.
    db.exec('CREATE INDEX "engChangeOrderTasks_ix_companyId_engChangeOrderId_lineNo" ON "engChangeOrderTasks"("_companyId", "engChangeOrderId", "lineNo")');
    db.exec('CREATE UNIQUE INDEX "engChangeOrderTasks_u_companyId_id" ON "engChangeOrderTasks"("_companyId", "id")');
    db.exec('CREATE INDEX "my_tasks_status" ON "engChangeOrderTasks"("status")');
    expect(migrate(db, model).droppedIndexes.sort()).toEqual(['engChangeOrderTasks_ix_companyId_engChangeOrderId_lineNo', 'engChangeOrderTasks_u_companyId_id']);
    const names = (db.raw.prepare(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'engChangeOrderTasks'`).all() as { name: string }[]).map((i) => i.name);
    expect(names).toContain('my_tasks_status');
    expect(names).toContain('engChangeOrderTasks_u_companyId_engChangeOrderId_lineNo');
    expect(names).not.toContain('engChangeOrderTasks_ix_companyId_engChangeOrderId_lineNo');
    expect(names).not.toContain('engChangeOrderTasks_u_companyId_id');
    expect(migrate(db, model).droppedIndexes).toEqual([]);
    db.close();
  });

  test('a new alternate key the rows already violate stops with the duplicated values named, and changes nothing', () => {
    const { dir, dbFile, db1 } = migratedCopy(true);
    for (const id of ['r1', 'r2']) {
      db1.raw.prepare(`INSERT INTO "changeReasons" ("id", "_companyId", "code", "description", "lastModifiedDateTime", "_version") VALUES (?, 'c1', ?, 'Same', '2026-01-01T00:00:00.000Z', 1)`).run(id, id.toUpperCase());
    }
    db1.close();
    const file = path.join(dir, 'entities', 'changeReason.json');
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as { properties: { name: string; nullable?: boolean }[] };
    for (const p of doc.properties) if (p.name === 'description') p.nullable = false;
    fs.writeFileSync(file, JSON.stringify({ ...doc, alternateKeys: [['description']] }, null, 2));
    const db2 = openDatabase(dbFile);
    expect(() => migrate(db2, loadModel(dir))).toThrow(MigrationError);
    expect(() => migrate(db2, loadModel(dir))).toThrow(
      'Cannot create the unique index "changeReasons_u_companyId_description": rows of "changeReasons" share values of (_companyId, description) (for example _companyId="c1", description="Same").',
    );
    expect(db2.raw.prepare(`SELECT count(*) AS n FROM sqlite_schema WHERE name = 'changeReasons_u_companyId_description'`).get()).toEqual({ n: 0 });
    db2.close();
  });
});
