/**
 * The indexes PostgreSQL's migration derives (postgres-ddl.ts postgresIndexDefs): NULLs first, as the
 * queries' ORDER BY asks, but the key, which the planner appends as plain ASC; so the comments of one
 * ECN come in their page order (ECN, line number, key) from the index, with no sort. An index an
 * earlier version created under the same name with other columns (the key NULLS FIRST) is dropped and
 * created again.
 */
import { PostgresEngine } from '../../../../src/db/postgres/postgres-engine.js';
import { startTestService, type TestService } from '../../../helpers/test-service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ engine: 'postgres' });
});
afterAll(async () => {
  await t.close();
});

const definition = async (like: string): Promise<{ name: string; def: string }> => {
  const rows = await t.query(`SELECT "indexname", "indexdef" FROM pg_indexes WHERE "indexname" LIKE ?`, [like]);
  expect(rows).toHaveLength(1);
  return { name: String(rows[0]?.['indexname']), def: String(rows[0]?.['indexdef']) };
};

test("the default order's index has the key as plain ASC; the page order of one ECN's comments needs no sort", async () => {
  const { def } = await definition('engChangeNoticeComments_ix_companyId_engChangeNoticeId%');
  expect(def).toMatch(/\("_companyId" NULLS FIRST, "engChangeNoticeId" NULLS FIRST, "lineNo" NULLS FIRST, id\)$/);
  const engine = t.service.engine;
  if (!(engine instanceof PostgresEngine)) throw new Error('not on PostgreSQL');
  const lines = await engine.database.transaction(async (s) => {
    await s.exec('SET LOCAL enable_seqscan = off');
    const plan = await s.all({
      sql: 'EXPLAIN (COSTS OFF) SELECT "comment" FROM "engChangeNoticeComments" WHERE "_companyId" = $1 AND "engChangeNoticeId" = $2 ORDER BY "engChangeNoticeId" ASC NULLS FIRST, "lineNo" ASC NULLS FIRST, "id" ASC',
      params: ['c', 'e'],
    });
    return plan.map((r) => String(r['QUERY PLAN']));
  });
  expect(lines[0]).toMatch(/^Index Scan using "engChangeNoticeComments_ix_companyId_engChangeNoticeId/);
  expect(lines.join('\n')).not.toMatch(/Sort/);
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
