/**
 * src/store/apply-defaults.ts: the model's defaults for properties a POST did not give.
 */
import { applyDefaults, assignKeyFirst, hasGeneratedKey } from '../../../src/store/apply-defaults.js';
import type { RowValues } from '../../../src/store/write-checks.js';
import { startTestService, type TestService } from '../../helpers/test-service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

test('generated keys are time-ordered UUIDs (version 7): each sorts after the one before, also within one millisecond', async () => {
  const type = t.service.model.entityTypeByName.get('engChangeNoticeComment');
  if (type === undefined) throw new Error('engChangeNoticeComment');
  const now = new Date();
  const ids: string[] = [];
  for (let i = 0; i < 200; i++) {
    const row: RowValues = new Map<string, string | number>([
      ['engChangeNoticeId', 'x'],
      ['lineNo', i + 1],
    ]);
    await applyDefaults(t.service.context, t.service.engine.db, type, row, { userId: 'U1', now, companyId: t.companyIds[0] });
    ids.push(row.get('id') as string);
  }
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(new Set(ids).size).toBe(ids.length);
  expect([...ids].sort()).toEqual(ids);
  // The first 48 bits are the creation time in milliseconds.
  const ms = parseInt((ids[0] as string).replace(/-/g, '').slice(0, 12), 16);
  expect(Math.abs(ms - Date.now())).toBeLessThan(60_000);
});

test('a key given to a row before its transaction (a change set part) counts as generated only while the row keeps it', () => {
  const type = t.service.model.entityTypeByName.get('engChangeNoticeComment');
  if (type === undefined) throw new Error('engChangeNoticeComment');
  const row: RowValues = new Map<string, string | number>([['lineNo', 1]]);
  assignKeyFirst(type, row);
  expect(row.get('id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
  expect(hasGeneratedKey(type, row)).toBe(true);
  row.set('id', '00000000-0000-4000-8000-000000000001');
  expect(hasGeneratedKey(type, row)).toBe(false);
  // A key the row already had is not replaced, nor counted as generated.
  const given: RowValues = new Map<string, string | number>([['id', '00000000-0000-4000-8000-000000000002']]);
  assignKeyFirst(type, given);
  expect(given.get('id')).toBe('00000000-0000-4000-8000-000000000002');
  expect(hasGeneratedKey(type, given)).toBe(false);
});
