/**
 * The plan cache reuses a request shape's compiled statements with the per-request values filled in,
 * and refuses to cache a plan that uses a value inside a longer parameter or in the SQL text. Through
 * the service: repeated reads with other keys and companies return their own rows, and reads whose
 * options the core restricted per caller never share a plan (the options are part of the shape).
 */
import { PlanCache } from '../../../src/query/plan-cache.js';
import type { SqlValue } from '../../../src/sql/nodes.js';
import { startTestService, type TestService } from '../../helpers/test-service.js';

test('a shape is planned once; its values are filled in on every hit', () => {
  const cache = new PlanCache<string>();
  let plans = 0;
  const plan = (v: readonly SqlValue[]) => {
    plans++;
    return { value: 'shape', statements: [{ sql: 'SELECT ? WHERE x = ? AND y = ?', params: [v[0] ?? null, 'constant', v[1] ?? null] }] };
  };
  const a = cache.get('k', ['company-a', 1], plan);
  const b = cache.get('k', ['company-b', 2], plan);
  expect(plans).toBe(1);
  expect(a.statements[0]?.params).toEqual(['company-a', 'constant', 1]);
  expect(b.statements[0]?.params).toEqual(['company-b', 'constant', 2]);
  expect(b.value).toBe('shape');
});

test('a plan that uses a value inside a longer parameter or in the SQL text is not cached', () => {
  const cache = new PlanCache<string>();
  let plans = 0;
  const inParam = (v: readonly SqlValue[]) => {
    plans++;
    return { value: 'x', statements: [{ sql: 'SELECT ?', params: [`%${String(v[0])}%`] }] };
  };
  expect(cache.get('p', ['abc'], inParam).statements[0]?.params).toEqual(['%abc%']);
  expect(cache.get('p', ['def'], inParam).statements[0]?.params).toEqual(['%def%']);
  expect(plans).toBe(4); // placeholder try + real values, twice
  const inText = (v: readonly SqlValue[]) => ({ value: 'x', statements: [{ sql: `SELECT '${String(v[0])}'`, params: [] }] });
  expect(cache.get('t', ['abc'], inText).statements[0]?.sql).toBe("SELECT 'abc'");
  expect(cache.get('t', ['def'], inText).statements[0]?.sql).toBe("SELECT 'def'");
});

describe('through the service', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t.close());

  test('repeated reads of one shape with other keys and companies return their own rows', async () => {
    for (const company of t.companyIds) {
      const list = (await t.call('GET', `/companies(${company})/engChangeNotices?$select=id,number&$top=4`)).json.value as { id: string; number: string }[];
      expect(list.length).toBe(4);
      for (const e of list) {
        const one = await t.call('GET', `/companies(${company})/engChangeNotices(${e.id})?$select=number`);
        expect(one.status).toBe(200);
        expect(one.json.number).toBe(e.number);
        expect(one.json['@odata.context']).toContain(`companies(${company})`);
      }
      const other = t.companyIds.find((c) => c !== company);
      expect((await t.call('GET', `/companies(${other})/engChangeNotices(${list[0]?.id})?$select=number`)).status).toBe(404);
    }
  });

  test('the companies set shows each caller its own companies with the same URL', async () => {
    const admin = (await t.call('GET', '/companies?$select=name')).json.value as { name: string }[];
    const klee = (await t.call('GET', '/companies?$select=name', { token: await t.token('KLEE') })).json.value as { name: string }[];
    const again = (await t.call('GET', '/companies?$select=name')).json.value as { name: string }[];
    expect(again).toEqual(admin);
    expect(admin.map((c) => c.name)).toEqual(['CRONUS', 'FABRIKAM']);
    expect(klee.map((c) => c.name)).toEqual(['CRONUS']); // KLEE holds grants in CRONUS only
  });
});
