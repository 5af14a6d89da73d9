/**
 * src/db/postgres/postgres-dialect.ts jsonObject on a real server: an entity's JSON is `row_to_json`
 * of a LATERAL one-row SELECT beside its row, which PostgreSQL pulls up into the level's columns (no
 * plan node of its own) and builds only for the rows a LIMIT keeps: after the sort, never for every
 * row sorted. Checked in the plans (EXPLAIN VERBOSE) of the statements real requests run, for a page
 * sorted by a column no index orders and for an expansion sorted the same way.
 */
import pg from 'pg';
import { createEmptyDatabase, type EmptyDatabase } from '../../../helpers/postgres.js';
import { startTestService, type TestService } from '../../../helpers/test-service.js';
import type { ReadRequest } from '../../../../src/db/read-executor.js';

let database: EmptyDatabase;
let t: TestService;
let client: pg.Client;
let company: string;
beforeAll(async () => {
  database = await createEmptyDatabase('dialect');
  t = await startTestService({ dbFile: database.url });
  company = t.companyIds[0] as string;
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  // The plans the service's connections get (postgres-database.ts GENERIC_PLANS): the LIMIT is a parameter.
  await client.query('SET plan_cache_mode = force_generic_plan');
});
afterAll(async () => {
  await client.end();
  await t.close();
  await database.drop();
});

/** The one statement a GET runs. */
async function statementOf(url: string): Promise<{ sql: string; params: readonly unknown[] }> {
  const reads: ReadRequest[] = [];
  const runner = t.service.engine.reads;
  const run = runner.run.bind(runner);
  runner.run = (read) => (reads.push(read), run(read));
  try {
    expect((await t.call('GET', url)).status).toBe(200);
  } finally {
    runner.run = run;
  }
  const steps = reads.flatMap((r) => r.steps);
  expect(steps).toHaveLength(1);
  const step = steps[0];
  if (step === undefined) throw new Error('no statement');
  return step.query;
}

interface PlanNode {
  readonly 'Node Type': string;
  readonly Alias?: string;
  readonly Output?: readonly string[];
  readonly Plans?: readonly PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

async function planOf(statement: { sql: string; params: readonly unknown[] }): Promise<PlanNode[]> {
  const r = await client.query(`EXPLAIN (VERBOSE, FORMAT JSON) ${statement.sql}`, statement.params as unknown[]);
  return nodes((r.rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan);
}

/** The aliases of the LATERAL one-row SELECTs whose row is an object in a statement. */
function lateralAliases(sql: string): string[] {
  const aliases = [...sql.matchAll(/row_to_json\("(t\d+)"\.\*\)/g)].map((m) => m[1] as string);
  for (const a of aliases) expect(sql).toContain(`) AS "${a}"`);
  expect(sql.split('CROSS JOIN LATERAL (SELECT ').length - 1).toBe(aliases.length);
  return aliases;
}

/** Asserts that no LATERAL SELECT is a plan node and that no sort carries an object or a member of one. */
function expectObjectsAfterSorts(plan: PlanNode[], sql: string, sorts: number): void {
  const aliases = lateralAliases(sql);
  expect(aliases.length).toBeGreaterThan(0);
  expect(plan.filter((n) => n.Alias !== undefined && aliases.includes(n.Alias))).toEqual([]);
  const sortNodes = plan.filter((n) => n['Node Type'] === 'Sort' || n['Node Type'] === 'Incremental Sort');
  expect(sortNodes).toHaveLength(sorts);
  for (const s of sortNodes) expect((s.Output ?? []).filter((o) => /row_to_json|odata_etag/.test(o))).toEqual([]);
}

test('a page sorted by a column no index orders builds its entities after the sort, from a pulled-up LATERAL SELECT', async () => {
  const statement = await statementOf(`/companies(${company})/engChangeNotices?$orderby=itemDescription&$top=3`);
  expect(statement.sql).toMatch(/^SELECT coalesce\(.* FROM \(SELECT CAST\(row_to_json\("t\d+"\.\*\) AS text\) AS "_json"/);
  expectObjectsAfterSorts(await planOf(statement), statement.sql, 1);
});

test('an expansion sorted by a column no index orders builds its entities after its sort too', async () => {
  const statement = await statementOf(`/companies(${company})/engChangeNotices?$orderby=itemDescription&$top=2&$expand=engChangeNoticeComments($orderby=comment;$top=1)`);
  expect(lateralAliases(statement.sql)).toHaveLength(2);
  expectObjectsAfterSorts(await planOf(statement), statement.sql, 2);
});

test('an object with an expansion as a member (JSON text) is a scalar subquery, not a LATERAL SELECT', async () => {
  // metadata=full is written by JavaScript: the expansion's rows are objects with their nested expansion as a member.
  const statement = await statementOf(
    `/companies(${company})/engChangeNotices?$top=1&$select=number&$expand=engChangeNoticeBOMLines($expand=engChangeNotice($select=number))&$format=application/json;odata.metadata=full`,
  );
  expect(statement.sql).toContain('(SELECT row_to_json("_j".*) FROM (SELECT "t1"."id" AS "id"');
  expect(lateralAliases(statement.sql)).toHaveLength(1);
});
