/**
 * The cases of plan-returning.test.ts (SQLite) and plan-returning-postgres.test.ts (PostgreSQL, which
 * needs the server of `npm run test:postgres`): a write returns the row it wrote in one statement, with
 * exactly what reading the row back gives, on the engine: the exact SQL and parameters, then executed.
 */
import { REPO_METADATA, startTestService, type TestService } from '../../helpers/test-service.js';
import { writeUpdate } from '../../../src/store/update-entity.js';
import { insertEntity } from '../../../src/store/insert-entity.js';
import { readRow } from '../../../src/store/resolve-path.js';
import { PreconditionFailedError } from '../../../src/errors/odata-error.js';
import { HIDDEN_COLUMNS, type EntityType } from '../../../src/edm/model.js';
import type { CompiledQuery } from '../../../src/sql/compile.js';
import { entityType, recording } from '../../helpers/recording-statements.js';
import type { StoredValue } from '../../../src/edm/values.js';

/** What an ECN write returns: the columns of readRow's SELECT (no parameters), on the table's own name. */
const ECN_RETURNING =
  ' RETURNING "engChangeNotices"."id" AS "id", "engChangeNotices"."number" AS "number", "engChangeNotices"."status" AS "status", ' +
  '"engChangeNotices"."itemNumber" AS "itemNumber", "engChangeNotices"."itemDescription" AS "itemDescription", "engChangeNotices"."changeReasonCode" AS "changeReasonCode", ' +
  '(SELECT "t0"."description" FROM "changeReasons" AS "t0" WHERE (("t0"."code" = "engChangeNotices"."changeReasonCode") AND ("t0"."_companyId" = "engChangeNotices"."_companyId")) LIMIT 1) AS "changeReasonDescription", ' +
  '"engChangeNotices"."drawingNumber" AS "drawingNumber", "engChangeNotices"."drawingTypeCode" AS "drawingTypeCode", "engChangeNotices"."sourceType" AS "sourceType", ' +
  '"engChangeNotices"."sourceStatus" AS "sourceStatus", "engChangeNotices"."sourceSalesDocumentType" AS "sourceSalesDocumentType", "engChangeNotices"."sourceNumber" AS "sourceNumber", ' +
  '"engChangeNotices"."sourceSequence" AS "sourceSequence", ("engChangeNotices"."_count_engChangeNoticeComments" > 0) AS "bomCommentExists", ' +
  '("engChangeNotices"."_count_engChangeNoticeBOMLines" > 0) AS "bomExists", "engChangeNotices"."creationDate" AS "creationDate", "engChangeNotices"."createdBy" AS "createdBy", ' +
  '"engChangeNotices"."lastModifiedDateTime" AS "lastModifiedDateTime", "engChangeNotices"."_version" AS "_version"';

/** The cases, on `engine`: a test service on it, each case under "on <engine>". */
export const planReturningCases = (engine: 'sqlite' | 'postgres'): void => describe(`on ${engine}`, () => {
  let t: TestService;
  const p = (n: number): string => (engine === 'sqlite' ? '?' : `$${n}`);
  beforeAll(async () => {
    t = await startTestService({ metadataDir: REPO_METADATA, engine });
  });
  afterAll(() => t.close());

  const typeOf = (name: string): EntityType => entityType(t.service.model, name);
  const reread = async (type: EntityType, id: unknown) => readRow(t.service.context, t.service.engine.db, type, t.companyIds[0], [{ property: 'id', value: id as StoredValue }]);

  test('an UPDATE returns the row as read back, its lookup recomputed, in one statement with the exact SQL', async () => {
    const svc = t.service.context;
    const type = typeOf('engChangeNotice');
    const reasons = await t.query('SELECT "code", "description" FROM "changeReasons" WHERE "_companyId" = ? ORDER BY "code"', [t.companyIds[0]]);
    expect(reasons.length).toBeGreaterThanOrEqual(2);
    const [first, second] = reasons as [Record<string, unknown>, Record<string, unknown>];
    const id = (await t.call('POST', `/companies(${t.companyIds[0]})/engChangeNotices`, { body: { changeReasonCode: first['code'] } })).json.id;
    const before = await reread(type, id);
    if (before === undefined) throw new Error('not found');
    expect(before['changeReasonDescription']).toBe(first['description']);
    const seen: CompiledQuery[] = [];
    const stored = await t.service.engine.transaction((tx) => writeUpdate(svc, recording(tx, seen), type, t.companyIds[0], before, new Map([['changeReasonCode', second['code'] as string]]), new Date()));
    expect(seen).toHaveLength(1);
    expect(seen[0]?.sql).toBe(
      `UPDATE "engChangeNotices" SET "_etag" = ${p(1)}, "_etagOf" = ${p(2)}, "_version" = ${p(3)}, "changeReasonCode" = ${p(4)}, "lastModifiedDateTime" = ${p(5)} ` +
        `WHERE (("engChangeNotices"."id" = ${p(6)}) AND ("engChangeNotices"."_version" = ${p(7)}))${ECN_RETURNING}`,
    );
    expect(seen[0]?.params.slice(5)).toEqual([id, before[HIDDEN_COLUMNS.version]]);
    expect(stored['changeReasonDescription']).toBe(second['description']);
    expect(stored).toEqual(await reread(type, id));
  });

  test('an UPDATE of a version another write moved on returns nothing: 412, and nothing is written', async () => {
    const svc = t.service.context;
    const type = typeOf('engChangeNotice');
    const id = (await t.call('POST', `/companies(${t.companyIds[0]})/engChangeNotices`, { body: { drawingNumber: 'D-1' } })).json.id;
    const before = await reread(type, id);
    if (before === undefined) throw new Error('not found');
    await t.service.engine.transaction((tx) => writeUpdate(svc, tx, type, t.companyIds[0], before, new Map([['drawingNumber', 'D-2']]), new Date()));
    const stale = t.service.engine.transaction((tx) => writeUpdate(svc, tx, type, t.companyIds[0], before, new Map([['drawingNumber', 'D-STALE']]), new Date()));
    await expect(stale).rejects.toBeInstanceOf(PreconditionFailedError);
    expect((await reread(type, id))?.['drawingNumber']).toBe('D-2');
  });

  test('the flags kept by counters and a fallback chain of lookups come back as a read gives them', async () => {
    const svc = t.service.context;
    const ecnType = typeOf('engChangeNotice');
    const ecns = await t.query('SELECT "id" FROM "engChangeNotices" WHERE "_companyId" = ? AND "_count_engChangeNoticeBOMLines" > 0 ORDER BY "id"', [t.companyIds[0]]);
    const withLines = await reread(ecnType, ecns[0]?.['id']);
    if (withLines === undefined) throw new Error('no ECN with BOM lines in the demo data');
    const ecn = await t.service.engine.transaction((tx) => writeUpdate(svc, tx, ecnType, t.companyIds[0], withLines, new Map([['drawingNumber', 'D-3']]), new Date()));
    expect(ecn['bomExists']).toBeTruthy();
    expect(ecn).toEqual(await reread(ecnType, withLines['id']));
    const taskType = typeOf('engChangeOrderTask');
    const tasks = await t.query('SELECT "id" FROM "engChangeOrderTasks" WHERE "_companyId" = ? AND "assignedTo" IS NOT NULL ORDER BY "id"', [t.companyIds[0]]);
    const task = await reread(taskType, tasks[0]?.['id']);
    if (task === undefined) throw new Error('no assigned task in the demo data');
    const stored = await t.service.engine.transaction((tx) => writeUpdate(svc, tx, taskType, t.companyIds[0], task, new Map([['description', 'returned']]), new Date()));
    expect(stored['assignedEmail']).toBe(task['assignedEmail']);
    expect(stored).toEqual(await reread(taskType, task['id']));
  });

  test('an INSERT returns the row as read back, in one statement', async () => {
    const svc = t.service.context;
    const type = typeOf('engChangeNotice');
    const seen: CompiledQuery[] = [];
    const stored = await t.service.engine.transaction((tx) =>
      insertEntity(svc, recording(tx, seen), type, t.companyIds[0], new Map([['drawingNumber', 'D-NEW']]), { userId: 'ADMIN', now: new Date() }),
    );
    const insert = seen.filter((q) => q.sql.startsWith('INSERT'));
    expect(insert).toHaveLength(1);
    expect(insert[0]?.sql).toMatch(/^INSERT INTO "engChangeNotices" \(.*"_companyId"\) VALUES \(.*\) RETURNING "engChangeNotices"\."id" AS "id", /);
    expect(insert[0]?.sql.endsWith(ECN_RETURNING)).toBe(true);
    expect(seen.filter((q) => q.sql.startsWith('SELECT') && q.sql.includes('FROM "engChangeNotices" AS "t0" WHERE (("t0"."_companyId"'))).toHaveLength(0);
    expect(stored['drawingNumber']).toBe('D-NEW');
    expect(stored).toEqual(await reread(type, stored['id']));
  });
});
