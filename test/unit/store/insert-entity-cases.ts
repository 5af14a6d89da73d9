/**
 * The cases of insert-entity.test.ts (SQLite) and insert-entity-postgres.test.ts (PostgreSQL, which needs
 * the server of `npm run test:postgres`): the exact statements a guarded or unguarded insert runs on the
 * engine, and what it answers.
 */
import { REPO_METADATA, startTestService, type TestService } from '../../helpers/test-service.js';
import { prepareInsert, writeInsert } from '../../../src/store/insert-entity.js';
import { BodyValidationError, ConflictError } from '../../../src/errors/odata-error.js';
import type { EntityType } from '../../../src/edm/model.js';
import type { CompiledQuery } from '../../../src/sql/compile.js';
import { entityType, recording } from '../../helpers/recording-statements.js';
import type { RowValues } from '../../../src/store/write-checks.js';

/** The cases, on `engine`: a test service on it, each case under "on <engine>". */
export const insertEntityCases = (engine: 'sqlite' | 'postgres'): void => describe(`on ${engine}`, () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ metadataDir: REPO_METADATA, engine });
  });
  afterAll(() => t.close());

  /** The engine's placeholders for `?`. */
  const placeholders = (sql: string): string => {
    let n = 0;
    return engine === 'postgres' ? sql.replace(/\?/g, () => `$${++n}`) : sql;
  };

  const typeOf = (name: string): EntityType => entityType(t.service.model, name);

  const MISSING = '00000000-0000-0000-0000-000000000000';
  const NOW = new Date('2026-11-25T10:00:00Z');

  /** Inserts `values` as `type` the way a write session does; the statements it ran. */
  async function insert(type: string, values: Record<string, unknown>, guard: boolean, companyId = t.companyIds[0]): Promise<CompiledQuery[]> {
    const seen: CompiledQuery[] = [];
    const tx = recording(t.service.engine.db, seen);
    const row: RowValues = new Map(Object.entries(values) as [string, string | number | null][]);
    const left = await prepareInsert(t.service.context, tx, typeOf(type), companyId, row, { userId: 'TEST', now: NOW }, undefined, guard);
    await writeInsert(t.service.context, tx, typeOf(type), companyId, row, left);
    return seen;
  }

  async function firstEcn(companyId = t.companyIds[0]): Promise<string> {
    const [ecn] = await t.query('SELECT "id" FROM "engChangeNotices" WHERE "_companyId" = ? ORDER BY "id" LIMIT 1', [companyId]);
    return String(ecn?.['id']);
  }

  const commentsWith = async (text: string): Promise<number> => (await t.query('SELECT "id" FROM "engChangeNoticeComments" WHERE "comment" = ?', [text])).length;

  test('a guarded comment is one statement: the INSERT, written only if its ECN is one of the company (exact SQL and parameters)', async () => {
    const ecn = await firstEcn();
    const seen = await insert('engChangeNoticeComment', { engChangeNoticeId: ecn, lineNo: 10000, comment: 'guarded' }, true);
    expect(seen).toHaveLength(1);
    const [q] = seen;
    expect(q?.sql).toBe(
      placeholders('INSERT INTO "engChangeNoticeComments" ("_etag", "_etagOf", "_version", "comment", "date", "engChangeNoticeId", "id", "lastModifiedDateTime", "lineNo", "userId", "_companyId") ' +
        'SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? ' +
        'WHERE EXISTS (SELECT 1 AS "one" FROM "engChangeNotices" AS "r0" WHERE (("r0"."_companyId" = ?) AND ("r0"."id" = ?)) LIMIT 1) ') +
        `RETURNING ${q?.sql.split(' RETURNING ')[1] ?? ''}`,
    );
    const params = q?.params ?? [];
    expect(params.slice(3, 11)).toEqual(['guarded', '2026-11-25', ecn, expect.stringMatching(/^[0-9a-f-]{36}$/), '2026-11-25T10:00:00.000Z', 10000, 'TEST', t.companyIds[0]]);
    expect(params.slice(11)).toEqual([t.companyIds[0], ecn]);
    expect(await commentsWith('guarded')).toBe(1);
  });

  test('unguarded, the same comment is a lookup and then the INSERT', async () => {
    const seen = await insert('engChangeNoticeComment', { engChangeNoticeId: await firstEcn(), lineNo: 20000, comment: 'looked up' }, false);
    expect(seen.map((q) => q.sql.split(' ')[0])).toEqual(['SELECT', 'INSERT']);
    expect(seen[1]?.sql).toContain(' VALUES (');
    expect(await commentsWith('looked up')).toBe(1);
  });

  test.each([
    ['no ECN', () => MISSING],
    ["another company's ECN", () => firstEcn(t.companyIds[1])],
  ])('a guarded comment under %s: the 400 of the lookup, nothing written', async (_name, ecnOf) => {
    const ecn = await ecnOf();
    const attempt = insert('engChangeNoticeComment', { engChangeNoticeId: ecn, lineNo: 30000, comment: `orphan ${ecn}` }, true);
    await expect(attempt).rejects.toBeInstanceOf(BodyValidationError);
    await expect(insert('engChangeNoticeComment', { engChangeNoticeId: ecn, lineNo: 30000, comment: `orphan ${ecn}` }, true)).rejects.toThrow(
      `The field engChangeNoticeId of engChangeNoticeComment contains a value (${ecn}) that cannot be found in the related table (engChangeNotice).`,
    );
    expect(await commentsWith(`orphan ${ecn}`)).toBe(0);
  });

  test('a unique value to look up keeps the references looked up first: a taken userId with a missing contact is the 400, not the 409', async () => {
    await insert('userSetup', { userId: 'GUARD-1', email: 'g1@example.com' }, true);
    await expect(insert('userSetup', { userId: 'GUARD-1', contactNo: 'NO-SUCH-CONTACT' }, true)).rejects.toThrow(/contactNo of userSetup contains a value \(NO-SUCH-CONTACT\) that cannot be found/);
    await expect(insert('userSetup', { userId: 'GUARD-1' }, true)).rejects.toBeInstanceOf(ConflictError);
  });

  test('a key the body gives is looked up (it may be taken): the references are then looked up before it, not guarded', async () => {
    const seen = await insert('engChangeNoticeComment', { id: '0193a000-0000-7000-8000-0000000000aa', engChangeNoticeId: await firstEcn(), lineNo: 40000, comment: 'given key' }, true);
    expect(seen.map((q) => q.sql.split(' FROM ')[1]?.split(' ')[0] ?? q.sql.split(' ')[0])).toEqual(['"engChangeNotices"', '"engChangeNoticeComments"', 'INSERT']);
  });
});
