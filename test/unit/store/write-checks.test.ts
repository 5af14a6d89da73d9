/**
 * src/store/write-checks.ts checkReferences: a reference field must name a row of the referenced type
 * in the company (400 otherwise), looked up in the database, except a reference to the parent row the
 * write was made under (ParentRow), which was read in the same transaction: no second lookup.
 * On the fixture model and its rules (no module of comments), so no demo rule decides whether the
 * ECN picked may take a comment.
 */
import { startTestService, type TestService } from '../../helpers/test-service.js';
import { checkReferences } from '../../../src/store/write-checks.js';
import { BodyValidationError } from '../../../src/errors/odata-error.js';
import type { EntityType } from '../../../src/edm/model.js';
import type { CompiledQuery } from '../../../src/sql/compile.js';
import { entityType, recording } from '../../helpers/recording-statements.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

const typeOf = (name: string): EntityType => entityType(t.service.model, name);

async function check(ecnId: string, parent?: { id: string }): Promise<CompiledQuery[]> {
  const seen: CompiledQuery[] = [];
  const row = new Map([['engChangeNoticeId', ecnId]]);
  const parentRow = parent === undefined ? undefined : { type: typeOf('engChangeNotice'), row: parent };
  await checkReferences(t.service.context, recording(t.service.engine.db, seen), typeOf('engChangeNoticeComment'), t.companyIds[0], row, new Set(['engChangeNoticeId']), parentRow);
  return seen;
}

test('a reference is looked up in the database: found, nothing thrown', async () => {
  const [ecn] = await t.query('SELECT "id" FROM "engChangeNotices" WHERE "_companyId" = ? ORDER BY "id" LIMIT 1', [t.companyIds[0]]);
  const seen = await check(String(ecn?.['id']));
  expect(seen).toHaveLength(1);
  expect(seen[0]?.sql).toContain('FROM "engChangeNotices"');
});

test('a reference to no row of the company is a 400 naming the field', async () => {
  await expect(check('00000000-0000-0000-0000-000000000000')).rejects.toBeInstanceOf(BodyValidationError);
  await expect(check('00000000-0000-0000-0000-000000000000')).rejects.toThrow(/engChangeNoticeId .* cannot be found in the related table \(engChangeNotice\)/);
});

test('a reference to the parent row the write is made under is not looked up again', async () => {
  const [ecn] = await t.query('SELECT "id" FROM "engChangeNotices" WHERE "_companyId" = ? ORDER BY "id" LIMIT 1', [t.companyIds[0]]);
  const id = String(ecn?.['id']);
  expect(await check(id, { id })).toHaveLength(0);
});

test('a parent row of the type with another key does not vouch for the reference: it is looked up', async () => {
  const [ecn] = await t.query('SELECT "id" FROM "engChangeNotices" WHERE "_companyId" = ? ORDER BY "id" LIMIT 1', [t.companyIds[0]]);
  const missing = '00000000-0000-0000-0000-000000000000';
  await expect(check(missing, { id: String(ecn?.['id']) })).rejects.toBeInstanceOf(BodyValidationError);
});

test('POST through a navigation: the comment is created under its ECN; an ECN that does not exist is a 404', async () => {
  const [ecn] = await t.query('SELECT "id" FROM "engChangeNotices" WHERE "_companyId" = ? ORDER BY "id" LIMIT 1', [t.companyIds[0]]);
  const base = `/companies(${t.companyIds[0]})/engChangeNotices`;
  const created = await t.call('POST', `${base}(${String(ecn?.['id'])})/engChangeNoticeComments`, { body: { comment: 'under its parent' } });
  expect(created.status).toBe(201);
  expect(created.json.engChangeNoticeId).toBe(ecn?.['id']);
  const missing = await t.call('POST', `${base}(00000000-0000-0000-0000-000000000000)/engChangeNoticeComments`, { body: { comment: 'no parent' } });
  expect(missing.status).toBe(404);
  const direct = await t.call('POST', `/companies(${t.companyIds[0]})/engChangeNoticeComments`, { body: { comment: 'direct', engChangeNoticeId: '00000000-0000-0000-0000-000000000000' } });
  expect(direct.status).toBe(400);
  expect(direct.json.error.message).toMatch(/cannot be found in the related table/);
});
