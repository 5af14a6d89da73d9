/**
 * The indexes PostgreSQL's migration derives (postgres-ddl.ts postgresIndexDefs): NULLs first, as the
 * queries' ORDER BY asks, but the key, which the planner appends as plain ASC; so the comments of one
 * ECN come in their page order (ECN, line number, key) from the index, with no sort. An index an
 * earlier version created under the same name with other columns (the key NULLS FIRST) is dropped and
 * created again.
 */
import pg from 'pg';
import { createEmptyDatabase, type EmptyDatabase } from '../../../helpers/postgres.js';
import { startTestService, type TestService } from '../../../helpers/test-service.js';

let database: EmptyDatabase;
let t: TestService;
beforeAll(async () => {
  database = await createEmptyDatabase('migrate_indexes');
  t = await startTestService({ dbFile: database.url });
});
afterAll(async () => {
  await t.close();
  await database.drop();
});

const definition = async (like: string): Promise<{ name: string; def: string }> => {
  const rows = await t.query(`SELECT "indexname", "indexdef" FROM pg_indexes WHERE "indexname" LIKE ?`, [like]);
  expect(rows).toHaveLength(1);
  return { name: String(rows[0]?.['indexname']), def: String(rows[0]?.['indexdef']) };
};

test("the default order's index has the key as plain ASC; the page order of one ECN's comments needs no sort", async () => {
  const { def } = await definition('engChangeNoticeComments_ix_companyId_engChangeNoticeId%');
  expect(def).toMatch(/\("_companyId" NULLS FIRST, "engChangeNoticeId" NULLS FIRST, "lineNo" NULLS FIRST, id\)$/);
  const c = new pg.Client({ connectionString: database.url });
  await c.connect();
  try {
    await c.query('SET enable_seqscan = off');
    const plan = await c.query(
      'EXPLAIN (COSTS OFF) SELECT "comment" FROM "engChangeNoticeComments" WHERE "_companyId" = $1 AND "engChangeNoticeId" = $2 ORDER BY "engChangeNoticeId" ASC NULLS FIRST, "lineNo" ASC NULLS FIRST, "id" ASC',
      ['c', 'e'],
    );
    const lines = plan.rows.map((r: Record<string, unknown>) => String(r['QUERY PLAN']));
    expect(lines[0]).toMatch(/^Index Scan using "engChangeNoticeComments_ix_companyId_engChangeNoticeId/);
    expect(lines.join('\n')).not.toMatch(/Sort/);
  } finally {
    await c.end();
  }
});

test('an index of the same name with other columns (an earlier version: the key NULLS FIRST) is created again', async () => {
  const { name, def } = await definition('engChangeOrderTaskPredecessors_ix_companyId_id');
  await t.query(`DROP INDEX "${name}"`);
  await t.query(`CREATE INDEX "${name}" ON "engChangeOrderTaskPredecessors" ("_companyId" NULLS FIRST, "id" NULLS FIRST)`);
  // The earlier version's schema stamp (a matching one skips the DDL).
  await t.query(`UPDATE "_schemaStamp" SET "stamp" = 'earlier' WHERE "id" = 1`);
  const report = await t.service.engine.migrate(t.service.model);
  expect(report.droppedIndexes).toEqual([name]);
  expect((await definition(name)).def).toBe(def);
  expect((await t.service.engine.migrate(t.service.model)).droppedIndexes).toEqual([]);
});
