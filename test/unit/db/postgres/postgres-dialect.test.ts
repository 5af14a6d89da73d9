/**
 * src/db/postgres/postgres-dialect.ts jsonObject on a real server, in the generic plans the service's
 * connections use (PREPARE, then EXPLAIN EXECUTE under plan_cache_mode=force_generic_plan):
 * - an entity of every property (odata.metadata=minimal) is the text its row keeps (`_entityJson`,
 *   db/postgres/postgres-entity-json.ts), the object built only for a row that keeps none, after the sort;
 * - an entity of some properties with its `@odata.etag` (odata.metadata=minimal) is `row_to_json` of a LATERAL one-row
 *   SELECT beside its row, which PostgreSQL pulls up into the level's columns (no plan node of its
 *   own) and builds only for the rows a LIMIT keeps, after the sort, for a page sorted by a column no
 *   index orders and for an expansion sorted the same way;
 * - an object without that costly member (odata.metadata=none) stays a scalar subquery, which a
 *   parallel plan runs above its Gather, for the rows kept: as a LATERAL SELECT its cheap columns
 *   were built by the workers for every row they sorted (2.4x slower on 120,000 comments, measured
 *   by a reviewer). The demo ECNs are copied a thousand times for a table that gets parallel plans.
 */
import pg from 'pg';
import { createEmptyDatabase, type EmptyDatabase } from '../../../helpers/postgres.js';
import { startTestService, type TestService } from '../../../helpers/test-service.js';
import { recordingReads } from '../../../helpers/recording-statements.js';

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
  // Enough ECNs for parallel plans: each demo ECN a thousand times more (without comments or BOM lines).
  const overrides = `'id', gen_random_uuid()::text, 'number', e."number" || '-' || g, '_count_engChangeNoticeComments', 0, '_count_engChangeNoticeBOMLines', 0`;
  await client.query(`INSERT INTO "engChangeNotices" SELECT (jsonb_populate_record(e, jsonb_build_object(${overrides}))).* FROM "engChangeNotices" AS e CROSS JOIN generate_series(1, 1000) AS g`);
  await client.query('ANALYZE');
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
  const { value: r, reads } = await recordingReads(t, () => t.call('GET', url));
  expect(r.status).toBe(200);
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

/** The generic plan of a statement: prepared, then explained with its values (a bound EXPLAIN would plan them in). */
async function planOf(statement: { sql: string; params: readonly unknown[] }, settings: readonly string[] = []): Promise<PlanNode> {
  const literal = (v: unknown): string => (typeof v === 'bigint' || typeof v === 'number' ? String(v) : v === null ? 'NULL' : client.escapeLiteral(String(v)));
  await client.query('BEGIN');
  try {
    for (const s of settings) await client.query(`SET LOCAL ${s}`);
    await client.query(`PREPARE s AS ${statement.sql}`);
    const args = statement.params.length === 0 ? '' : `(${statement.params.map(literal).join(', ')})`;
    const r = await client.query(`EXPLAIN (VERBOSE, FORMAT JSON) EXECUTE s${args}`);
    const plan = (r.rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan;
    expect(JSON.stringify(plan)).toMatch(/\$\d/); // generic: the values are parameters
    return plan;
  } finally {
    await client.query('ROLLBACK');
    await client.query('DEALLOCATE ALL');
  }
}

/** The aliases of the LATERAL one-row SELECTs whose row is an object in a statement. */
function lateralAliases(sql: string): string[] {
  const aliases = [...sql.matchAll(/row_to_json\("(t\d+)"\.\*\)/g)].map((m) => m[1] as string);
  for (const a of aliases) expect(sql).toContain(`) AS "${a}"`);
  expect(sql.split('CROSS JOIN LATERAL (SELECT ').length - 1).toBe(aliases.length);
  return aliases;
}

const OBJECT = /row_to_json|odata_etag/;

/** Sorts and what is below them: a column they carry is computed for every row sorted. */
function sortsAndBelow(plan: PlanNode): PlanNode[] {
  if (plan['Node Type'] === 'Sort' || plan['Node Type'] === 'Incremental Sort') return nodes(plan);
  return (plan.Plans ?? []).flatMap(sortsAndBelow);
}

/** Asserts that no object, nor a member of one, is computed at or below a sort (subplans included). */
function expectObjectsAfterSorts(plan: PlanNode, sorts: number): void {
  expect(nodes(plan).filter((n) => n['Node Type'] === 'Sort' || n['Node Type'] === 'Incremental Sort')).toHaveLength(sorts);
  expect(sortsAndBelow(plan).flatMap((n) => (n.Output ?? []).filter((o) => OBJECT.test(o)))).toEqual([]);
}

/** Asserts that the LATERAL SELECTs of a statement were pulled up: no plan node of their own. */
function expectPulledUp(plan: PlanNode, sql: string): void {
  const aliases = lateralAliases(sql);
  expect(aliases.length).toBeGreaterThan(0);
  expect(nodes(plan).filter((n) => n.Alias !== undefined && aliases.includes(n.Alias))).toEqual([]);
}

/** The nodes below a Gather or Gather Merge (what the parallel workers run). */
function belowGathers(plan: PlanNode): PlanNode[] {
  if (plan['Node Type'] === 'Gather' || plan['Node Type'] === 'Gather Merge') return (plan.Plans ?? []).flatMap(nodes);
  return (plan.Plans ?? []).flatMap(belowGathers);
}

/** Planner settings under which the copied ECNs (about 4 MB, below the 8 MB a parallel scan needs by default) get a parallel plan. */
const PARALLEL = ['parallel_setup_cost = 0', 'parallel_tuple_cost = 0', 'min_parallel_table_scan_size = 0'];

/** Plain columns only (no lookup, whose subquery no worker may run): the object is cheap but for its etag. */
const sortedPage = (format: string): string => `/companies(${company})/engChangeNotices?$select=number,itemDescription&$orderby=itemDescription&$top=3&$format=application/json;odata.metadata=${format}`;

/** Some of an ECN's properties, a lookup among them: objects built from columns (every property would be the stored JSON). */
const SOME = 'id,number,itemDescription,changeReasonDescription,drawingNumber,bomExists';

test('a page sorted by a column no index orders builds its entities after the sort, from a pulled-up LATERAL SELECT', async () => {
  const statement = await statementOf(`/companies(${company})/engChangeNotices?$select=${SOME}&$orderby=itemDescription&$top=3`);
  // A small page is one text of its entities (EngineCapabilities.pageTextFits), aggregated from the page's rows.
  expect(statement.sql).toMatch(/^SELECT string_agg\("p"\."_json", \$1\) AS "_page" FROM \(SELECT CAST\(row_to_json\("t\d+"\.\*\) AS text\) AS "_json"/);
  const plan = await planOf(statement);
  expectPulledUp(plan, statement.sql);
  expectObjectsAfterSorts(plan, 1);
});

test('an expansion sorted by a column no index orders builds its entities after its sort too', async () => {
  const statement = await statementOf(`/companies(${company})/engChangeNotices?$select=${SOME}&$orderby=itemDescription&$top=2&$expand=engChangeNoticeComments($select=comment;$orderby=comment;$top=1)`);
  expect(lateralAliases(statement.sql)).toHaveLength(2);
  const plan = await planOf(statement);
  expectPulledUp(plan, statement.sql);
  expectObjectsAfterSorts(plan, 2);
});

test('a page of whole entities copies the JSON each row keeps, after the sort; the object is built only for a row that keeps none', async () => {
  const statement = await statementOf(`/companies(${company})/engChangeNotices?$orderby=itemDescription&$top=3&$expand=engChangeNoticeComments($orderby=comment;$top=1)`);
  expect(statement.sql).toMatch(/^SELECT string_agg\("p"\."_json", \$1\) AS "_page" FROM \(SELECT \(\(\(rtrim\(coalesce\("t0"\."_entityJson", CAST\(\(SELECT row_to_json\("_j"\.\*\)/);
  expect(statement.sql).toContain('SELECT coalesce("t2"."_entityJson", CAST((SELECT row_to_json("_j".*)');
  expect(lateralAliases(statement.sql)).toEqual([]);
  const plan = await planOf(statement);
  expectObjectsAfterSorts(plan, 2);
});

test('in a parallel plan, no object is built before the sort: with its etag (LATERAL) or without (scalar subquery)', async () => {
  const minimal = await statementOf(sortedPage('minimal'));
  expect(lateralAliases(minimal.sql)).toHaveLength(1);
  const none = await statementOf(sortedPage('none'));
  expect(lateralAliases(none.sql)).toEqual([]);
  expect(none.sql).toContain('CAST((SELECT row_to_json("_j".*) FROM (SELECT "t0"."id" AS "id", "t0"."number" AS "number", "t0"."itemDescription" AS "itemDescription") AS "_j") AS text)');
  for (const statement of [minimal, none]) {
    const plan = await planOf(statement, PARALLEL);
    expect(belowGathers(plan).length).toBeGreaterThan(0);
    expectObjectsAfterSorts(plan, 1);
  }
});

test('an object with an expansion as a member (JSON text) is a scalar subquery, not a LATERAL SELECT', async () => {
  // metadata=full is written by JavaScript: the expansion's rows are objects with their nested expansion as a member.
  const statement = await statementOf(
    `/companies(${company})/engChangeNotices?$top=1&$select=number&$expand=engChangeNoticeBOMLines($expand=engChangeNotice($select=number))&$format=application/json;odata.metadata=full`,
  );
  expect(statement.sql).toContain('(SELECT row_to_json("_j".*) FROM (SELECT "t1"."id" AS "id"');
  expect(lateralAliases(statement.sql)).toEqual([]);
});

test('a page of whole ECNs is one text up to about 1,500 members (50 ECNs), rows beyond (100 ECNs): past about 60 KB a text costs the server more', async () => {
  const text = await statementOf(`/companies(${company})/engChangeNotices?$top=50`);
  expect(text.sql).toMatch(/^SELECT string_agg\("p"\."_json", \$1\) AS "_page" FROM \(SELECT coalesce\("t0"\."_entityJson"/);
  const rows = await statementOf(`/companies(${company})/engChangeNotices?$top=100`);
  expect(rows.sql).toMatch(/^SELECT coalesce\("t0"\."_entityJson"/);
  // Three properties of 100 ECNs are few members: one text.
  const few = await statementOf(`/companies(${company})/engChangeNotices?$top=100&$select=id,number,status`);
  expect(few.sql).toMatch(/^SELECT string_agg\(/);
});
