/**
 * Golden SQL of `$apply`: a query string → the exact SQL and parameters of the aggregated read
 * (plan-apply.ts, through the real parser, binder and compiler), then executed on the golden fixture
 * and compared with an oracle computed here in JavaScript from the fixture's own rows. The fixture has
 * nulls, enums, decimals, navigation paths (one leading to no row) and a second company whose ECNs and
 * BOM lines must not be grouped, counted or summed.
 */
import type { Service } from '../../src/service.js';
import type { StoredValue } from '../../src/edm/values.js';
import { ECNS, ID, LINES, REASONS, startGoldenService } from './golden-fixture.js';
import { compileAggregated } from './golden-harness.js';
import { APPLY, type ApplyCase } from './golden-apply-cases.js';

let service: Service;
beforeAll(async () => {
  service = await startGoldenService();
});
afterAll(() => service.close());

const A = ID.companyA;
const ECN_TABLE = '"engChangeNotices" AS "t0"';
const A_ONLY = 'WHERE ("t0"."_companyId" = ?)';
/** The stored members of ecnStatus, in the model's order. */
const STATUSES = ['New', 'Pending_x0020_Approval', 'Approved', 'Rejected', 'Closed'];
/**
 * groupby((status),aggregate($count as n)) on company A read member by member (plan-apply.ts
 * memberGroupSelect): the union of the members as `m`, a count subquery `c`, the EXISTS `e`.
 */
const byMember = (m: string, c: string, e: string): string =>
  `SELECT "${m}"."v" AS "c0", (SELECT count(*) FROM "engChangeNotices" AS "${c}" WHERE (("${c}"."_companyId" = ?) AND ("${c}"."status" = "${m}"."v"))) AS "c1" ` +
  `FROM (${STATUSES.map(() => 'SELECT ? AS "v"').join(' UNION ALL ')}) AS "${m}" WHERE EXISTS (SELECT 1 FROM "engChangeNotices" AS "${e}" WHERE (("${e}"."_companyId" = ?) AND ("${e}"."status" = "${m}"."v")))`;
const BY_MEMBER_PARAMS = [A, ...STATUSES, A];

type Row = Record<string, unknown>;

/** Compiles the aggregated read of a case on company A; rows come back keyed by result name. */
function aggregated(c: ApplyCase) {
  const { compiled, count, named } = compileAggregated(service, c);
  return { compiled, run: () => service.db.all(compiled).map(named), count: () => Number(service.db.get(count)?.['n']) };
}

// The oracle's view of the fixture.
const ecns: readonly Record<string, StoredValue>[] = ECNS;
const statusOf = (ecn: number): unknown => ecns[ecn - 1]?.status;
const reasonDescription = (code: unknown): string | null => REASONS.find(([c]) => c === code)?.[1] ?? null;
function groups<T>(rows: readonly T[], key: (r: T) => unknown[]): Map<string, { key: unknown[]; rows: T[] }> {
  const out = new Map<string, { key: unknown[]; rows: T[] }>();
  for (const r of rows) {
    const k = key(r);
    const id = JSON.stringify(k);
    const g = out.get(id) ?? { key: k, rows: [] };
    g.rows.push(r);
    out.set(id, g);
  }
  return out;
}
/** SQLite's ascending order: NULL first, numbers before text, text by code unit. */
const ascending = (a: unknown, b: unknown): number => (a === b ? 0 : a === null || a === undefined ? -1 : b === null || b === undefined ? 1 : String(a) < String(b) ? -1 : 1);
const byKeys = (a: Row, b: Row, keys: string[]): number => keys.reduce((c, k) => c || ascending(a[k], b[k]), 0);

test('groupby((status),aggregate($count as n)): counted member by member of the indexed enum, company A only, ordered by the grouping column', () => {
  const q = aggregated(APPLY.countByStatus);
  expect(q.compiled.sql).toBe(`SELECT "r"."c0" AS "c0", "r"."c1" AS "c1" FROM (${byMember('t0', 't1', 't2')}) AS "r" ORDER BY "r"."c0" ASC`);
  expect(q.compiled.params).toEqual(BY_MEMBER_PARAMS);
  const expected = [...groups(ecns, (e) => [e.status]).values()].map((g) => ({ status: g.key[0], n: g.rows.length })).sort((a, b) => byKeys(a, b, ['status']));
  expect(q.run()).toEqual(expected);
  expect(q.count()).toBe(expected.length);
});

test('a navigation path and decimals: BOM lines by their ECN status, sum of quantityPer, an all-null sum, $count', () => {
  const q = aggregated(APPLY.linesByEcnStatus);
  expect(q.compiled.sql).toBe(
    'SELECT "r"."c0" AS "c0", "r"."c1" AS "c1", "r"."c2" AS "c2", "r"."c3" AS "c3" FROM (SELECT "t1"."status" AS "c0", sum("t0"."quantityPer") AS "c1", sum("t0"."newQuantityPer") AS "c2", count(*) AS "c3" ' +
      'FROM "engChangeNoticeBOMLines" AS "t0" LEFT JOIN "engChangeNotices" AS "t1" ON (("t1"."id" = "t0"."engChangeNoticeId") AND ("t1"."_companyId" = "t0"."_companyId")) ' +
      `${A_ONLY} GROUP BY "t1"."status") AS "r" ORDER BY "r"."c0" ASC`,
  );
  expect(q.compiled.params).toEqual([A]);
  const expected = [...groups(LINES, (l) => [statusOf(l.ecn)]).values()]
    .map((g) => ({ 'engChangeNotice/status': g.key[0], total: g.rows.reduce((s, l) => s + l.quantityPer, 0), newTotal: null, n: g.rows.length }))
    .sort((a, b) => byKeys(a, b, ['engChangeNotice/status']));
  expect(q.run()).toEqual(expected);
});

test('a lookup through a navigation that finds no row for some ECNs: null is a group of its own', () => {
  const q = aggregated(APPLY.byReasonDescription);
  expect(q.compiled.sql).toBe(
    `SELECT "r"."c0" AS "c0", "r"."c1" AS "c1" FROM (SELECT "t1"."description" AS "c0", count(*) AS "c1" FROM ${ECN_TABLE} ` +
      'LEFT JOIN "changeReasons" AS "t1" ON (("t1"."code" = "t0"."changeReasonCode") AND ("t1"."_companyId" = "t0"."_companyId")) ' +
      `${A_ONLY} GROUP BY "t1"."description") AS "r" ORDER BY "r"."c0" ASC`,
  );
  const expected = [...groups(ecns, (e) => [reasonDescription(e.changeReasonCode)]).values()]
    .map((g) => ({ 'changeReason/description': g.key[0], n: g.rows.length }))
    .sort((a, b) => byKeys(a, b, ['changeReason/description']));
  expect(expected[0]).toEqual({ 'changeReason/description': null, n: 2 });
  expect(q.run()).toEqual(expected);
});

test('filter with an enum list, then aggregate alone: sum, average, min, max, countdistinct (nulls ignored)', () => {
  const q = aggregated(APPLY.filterThenAggregate);
  expect(q.compiled.sql).toBe(
    'SELECT "r"."c0" AS "c0", "r"."c1" AS "c1", "r"."c2" AS "c2", "r"."c3" AS "c3", "r"."c4" AS "c4" FROM (SELECT sum("t0"."sourceSequence") AS "c0", avg("t0"."sourceSequence") AS "c1", ' +
      `min("t0"."sourceSequence") AS "c2", max("t0"."sourceSequence") AS "c3", count(DISTINCT "t0"."drawingTypeCode") AS "c4" FROM ${ECN_TABLE} ` +
      'WHERE (("t0"."_companyId" = ?) AND ("t0"."status" IN (?, ?)))) AS "r"',
  );
  expect(q.compiled.params).toEqual([A, 'New', 'Approved']);
  const chosen = ecns.filter((e) => e.status === 'New' || e.status === 'Approved');
  const seq = chosen.map((e) => e.sourceSequence as number);
  const total = seq.reduce((s, n) => s + n, 0);
  expect(q.run()).toEqual([{ total, avg: total / seq.length, lo: Math.min(...seq), hi: Math.max(...seq), types: new Set(chosen.map((e) => e.drawingTypeCode).filter((v) => v !== null && v !== undefined)).size }]);
});

test('a filter on the aggregated values and $orderby: the outer query sorts by the alias, then by every grouping column', () => {
  const q = aggregated(APPLY.filterOnAggregates);
  expect(q.compiled.sql).toBe(
    'SELECT "r"."c0" AS "c0", "r"."c1" AS "c1", "r"."c2" AS "c2", "r"."c2" AS "_sort0" FROM (SELECT "t0"."status" AS "c0", "t0"."changeReasonCode" AS "c1", count(*) AS "c2" ' +
      `FROM ${ECN_TABLE} ${A_ONLY} GROUP BY "t0"."status", "t0"."changeReasonCode") AS "r" WHERE ("r"."c2" > ?) ORDER BY "r"."c2" DESC, "r"."c0" ASC, "r"."c1" ASC`,
  );
  expect(q.compiled.params).toEqual([A, 1n]);
  const expected = [...groups(ecns, (e) => [e.status, e.changeReasonCode ?? null]).values()]
    .map((g) => ({ status: g.key[0], changeReasonCode: g.key[1], n: g.rows.length }))
    .filter((g) => g.n > 1)
    .sort((a, b) => b.n - a.n || byKeys(a, b, ['status', 'changeReasonCode']));
  expect(q.run()).toEqual(expected);
});

test('two stages: the second groupby reads the first as a derived table', () => {
  const q = aggregated(APPLY.twoStages);
  expect(q.compiled.sql).toBe(
    'SELECT "r"."c0" AS "c0", "r"."c1" AS "c1" FROM (SELECT "t1"."c0" AS "c0", max("t1"."c2") AS "c1" FROM (SELECT "t0"."status" AS "c0", "t0"."sourceType" AS "c1", count(*) AS "c2" ' +
      `FROM ${ECN_TABLE} ${A_ONLY} GROUP BY "t0"."status", "t0"."sourceType") AS "t1" GROUP BY "t1"."c0") AS "r" ORDER BY "r"."c0" ASC`,
  );
  const first = [...groups(ecns, (e) => [e.status, e.sourceType ?? '_x0020_']).values()].map((g) => ({ status: g.key[0], n: g.rows.length }));
  const expected = [...groups(first, (g) => [g.status]).values()].map((g) => ({ status: g.key[0], most: Math.max(...g.rows.map((r) => r.n)) })).sort((a, b) => byKeys(a, b, ['status']));
  expect(q.run()).toEqual(expected);
});

test('the next page starts strictly after the last group of the previous one (keyset, LIMIT bound)', () => {
  const q = aggregated(APPLY.nextPage);
  expect(q.compiled.sql).toBe(
    `SELECT "r"."c0" AS "c0", "r"."c1" AS "c1" FROM (${byMember('t0', 't1', 't2')}) AS "r" WHERE ("r"."c0" > ?) ORDER BY "r"."c0" ASC LIMIT CAST(? AS INTEGER)`,
  );
  expect(q.compiled.params).toEqual([...BY_MEMBER_PARAMS, 'Closed', 2]);
  const all = [...groups(ecns, (e) => [e.status]).values()].map((g) => ({ status: g.key[0], n: g.rows.length })).sort((a, b) => byKeys(a, b, ['status']));
  expect(q.run()).toEqual(all.filter((g) => String(g.status) > 'Closed').slice(0, 2));
});

test('a null grouping value pages too: the token may end in null', () => {
  const q = aggregated(APPLY.nextPageAfterNull);
  expect(q.compiled.sql).toContain('WHERE ("r"."c0" IS NOT NULL) ORDER BY "r"."c0" ASC');
  expect(q.run().map((r) => r['changeReasonCode'])).toEqual(['COST', 'DESIGN', 'QUALITY']);
});

test("company B's rows are never counted: its ECNs, its BOM lines and their decimals", () => {
  expect(aggregated(APPLY.ecnTotals).run()).toEqual([{ n: ECNS.length, hi: 100 }]);
  expect(aggregated(APPLY.lineTotals).run()).toEqual([{ total: 11.5, n: LINES.length }]);
});

test('orderby then top: a derived table cut in that order (then the grouping columns); the response keeps the order', () => {
  const q = aggregated(APPLY.orderbyTop);
  expect(q.compiled.sql).toBe(
    `SELECT "r"."c0" AS "c0", "r"."c1" AS "c1", "r"."c1" AS "_sort0" FROM (SELECT "t3"."c0" AS "c0", "t3"."c1" AS "c1" FROM (${byMember('t0', 't1', 't2')}) AS "t3" ` +
      'ORDER BY "t3"."c1" DESC, "t3"."c0" ASC LIMIT CAST(? AS INTEGER)) AS "r" ORDER BY "r"."c1" DESC, "r"."c0" ASC',
  );
  expect(q.compiled.params).toEqual([...BY_MEMBER_PARAMS, 2]);
  const all = [...groups(ecns, (e) => [e.status]).values()].map((g) => ({ status: g.key[0], n: g.rows.length }));
  expect(q.run()).toEqual(all.sort((a, b) => b.n - a.n || byKeys(a, b, ['status'])).slice(0, 2));
});

test('concat: one UNION ALL, each row with its branch and its position in the branch', () => {
  const q = aggregated(APPLY.concat);
  expect(q.compiled.sql).toBe(
    'SELECT "r"."u0" AS "u0", "r"."u1" AS "u1", "r"."u2" AS "u2", "r"."_branch" AS "_branch" FROM (' +
      `SELECT "t4"."c0" AS "u0", NULL AS "u1", NULL AS "u2", 0 AS "_branch", row_number() OVER () AS "_pos" FROM (SELECT count(*) AS "c0" FROM (${byMember('t0', 't1', 't2')}) AS "t3") AS "t4" UNION ALL ` +
      `SELECT NULL AS "u0", "t9"."c0" AS "u1", "t9"."c1" AS "u2", 1 AS "_branch", row_number() OVER (ORDER BY "t9"."c0" ASC) AS "_pos" FROM (SELECT "t8"."c0" AS "c0", "t8"."c1" AS "c1" FROM (${byMember('t5', 't6', 't7')}) AS "t8" ORDER BY "t8"."c0" ASC LIMIT CAST(? AS INTEGER)) AS "t9"` +
      ') AS "r" ORDER BY "r"."_branch" ASC, "r"."_pos" ASC',
  );
  expect(q.compiled.params).toEqual([...BY_MEMBER_PARAMS, ...BY_MEMBER_PARAMS, 1]);
  const first = [...groups(ecns, (e) => [e.status]).values()].map((g) => ({ status: g.key[0], n: g.rows.length })).sort((a, b) => byKeys(a, b, ['status']))[0];
  const rows = service.db.all(q.compiled);
  expect(rows).toEqual([
    { u0: groups(ecns, (e) => [e.status]).size, u1: null, u2: null, _branch: 0 },
    { u0: null, u1: first?.status, u2: first?.n, _branch: 1 },
  ]);
});

test('member by member with filters before the groupby (a join in each subquery), two counts, and members with no row left out', () => {
  const q = aggregated(APPLY.statusFiltered);
  const where = (t: string, j: string): string =>
    `WHERE ((("${t}"."_companyId" = ?) AND (("${t}"."status" IS NOT ?) AND ("${j}"."description" IS NOT ?))) AND ("${t}"."status" = "t0"."v"))`;
  const join = (t: string, j: string): string => `LEFT JOIN "changeReasons" AS "${j}" ON (("${j}"."code" = "${t}"."changeReasonCode") AND ("${j}"."_companyId" = "${t}"."_companyId"))`;
  const count = (t: string, j: string): string => `(SELECT count(*) FROM "engChangeNotices" AS "${t}" ${join(t, j)} ${where(t, j)})`;
  expect(q.compiled.sql).toBe(
    `SELECT "r"."c0" AS "c0", "r"."c1" AS "c1", "r"."c2" AS "c2" FROM (SELECT "t0"."v" AS "c0", ${count('t1', 't2')} AS "c1", ${count('t3', 't4')} AS "c2" ` +
      `FROM (${STATUSES.map(() => 'SELECT ? AS "v"').join(' UNION ALL ')}) AS "t0" WHERE EXISTS (SELECT 1 FROM "engChangeNotices" AS "t5" ${join('t5', 't6')} ${where('t5', 't6')})) AS "r" ORDER BY "r"."c0" ASC`,
  );
  const kept = ecns.filter((e) => e.status !== 'Closed' && reasonDescription(e.changeReasonCode) !== null);
  const expected = [...groups(kept, (e) => [e.status]).values()].map((g) => ({ status: g.key[0], n: g.rows.length, again: g.rows.length })).sort((a, b) => byKeys(a, b, ['status']));
  expect(expected.map((g) => g.status)).not.toContain('Closed');
  expect(q.run()).toEqual(expected);
  expect(q.count()).toBe(expected.length);
});

test('groupby((status)) alone: the members that have rows, nothing counted', () => {
  const q = aggregated(APPLY.statusOnly);
  expect(q.compiled.sql).toBe(
    `SELECT "r"."c0" AS "c0" FROM (SELECT "t0"."v" AS "c0" FROM (${STATUSES.map(() => 'SELECT ? AS "v"').join(' UNION ALL ')}) AS "t0" ` +
      'WHERE EXISTS (SELECT 1 FROM "engChangeNotices" AS "t1" WHERE (("t1"."_companyId" = ?) AND ("t1"."status" = "t0"."v")))) AS "r" ORDER BY "r"."c0" ASC',
  );
  expect(q.run()).toEqual([...new Set(ecns.map((e) => e.status))].sort(ascending).map((status) => ({ status })));
});

test('a computed property is grouped by its position in the SELECT list (written again, PostgreSQL would not match it: its parameters renumbered)', () => {
  const q = aggregated(APPLY.byReason);
  const reason = '(SELECT "t1"."description" FROM "changeReasons" AS "t1" WHERE (("t1"."code" = "t0"."changeReasonCode") AND ("t1"."_companyId" = "t0"."_companyId")) LIMIT 1)';
  expect(q.compiled.sql).toBe(`SELECT "r"."c0" AS "c0", "r"."c1" AS "c1" FROM (SELECT ${reason} AS "c0", count(*) AS "c1" FROM ${ECN_TABLE} ${A_ONLY} GROUP BY 1) AS "r" ORDER BY "r"."c0" ASC`);
  const description = new Map(REASONS);
  const expected = [...groups(ecns, (e) => [typeof e.changeReasonCode === 'string' ? (description.get(e.changeReasonCode) ?? null) : null]).values()].map((g) => ({ changeReasonDescription: g.key[0], n: g.rows.length }));
  expect(q.run()).toEqual(expected.sort((a, b) => byKeys(a, b, ['changeReasonDescription'])));
});

test('the GROUP BY stays where members are not the way: an enum no model index starts with, or an aggregate that reads the rows', () => {
  const bySource = aggregated(APPLY.bySourceType);
  expect(bySource.compiled.sql).toBe(`SELECT "r"."c0" AS "c0", "r"."c1" AS "c1" FROM (SELECT "t0"."sourceType" AS "c0", count(*) AS "c1" FROM ${ECN_TABLE} ${A_ONLY} GROUP BY "t0"."sourceType") AS "r" ORDER BY "r"."c0" ASC`);
  expect(bySource.run()).toEqual([...groups(ecns, (e) => [e.sourceType ?? '_x0020_']).values()].map((g) => ({ sourceType: g.key[0], n: g.rows.length })).sort((a, b) => byKeys(a, b, ['sourceType'])));
  const withSum = aggregated(APPLY.statusSum);
  expect(withSum.compiled.sql).toContain('GROUP BY "t0"."status"');
  const sums = [...groups(ecns, (e) => [e.status]).values()].map((g) => ({ status: g.key[0], n: g.rows.length, s: g.rows.reduce((t, e) => t + Number(e.sourceSequence ?? 0), 0) }));
  expect(withSum.run()).toEqual(sums.sort((a, b) => byKeys(a, b, ['status'])));
});
