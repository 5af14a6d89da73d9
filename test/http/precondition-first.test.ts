/**
 * A change that requires If-Match (PATCH, PUT, media PUT) and has none answers 428 before any work:
 * no beforeWrite hook runs (they may call out), the body is not validated, no transaction starts.
 */
import type { EntityHooks } from '../../src/hooks/types.js';
import { REPO_METADATA, startTestService, type TestService } from '../helpers/test-service.js';

describe('428 before any hook or database work', () => {
  const called: string[] = [];
  const recording: EntityHooks[] = [
    { entityType: 'engChangeNotice', beforeWrite: (ctx) => void called.push(`ECN ${ctx.op}`) },
    { entityType: 'engChangeOrder', beforeWrite: (ctx) => void called.push(`ECO ${ctx.op}`) },
  ];
  let t: TestService;
  let ecn: string;
  let eco: string;
  beforeAll(async () => {
    t = await startTestService({ metadataDir: REPO_METADATA, rules: recording });
    const c = `/companies(${t.companyIds[0]})`;
    ecn = `${c}/engChangeNotices(${(await t.call('GET', `${c}/engChangeNotices?$top=1&$select=id`)).json.value[0].id})`;
    eco = `${c}/engChangeOrders(${(await t.call('GET', `${c}/engChangeOrders?$top=1&$select=id`)).json.value[0].id})`;
  });
  afterAll(() => t.close());
  beforeEach(() => void called.splice(0));

  const transactions = async (during: () => Promise<unknown>): Promise<number> => {
    const engine = t.service.engine;
    const original = engine.transaction.bind(engine);
    let n = 0;
    engine.transaction = ((body: Parameters<typeof original>[0]) => {
      n++;
      return original(body);
    }) as typeof engine.transaction;
    try {
      await during();
    } finally {
      engine.transaction = original;
    }
    return n;
  };

  test.each([
    ['PATCH', () => ecn, { drawingNumber: 'D-428' }],
    ['PUT', () => ecn, { drawingNumber: 'D-428' }],
    ['PATCH with a body that would fail validation', () => ecn, { drawingNumber: 12, unknownProperty: true }],
  ])('%s without If-Match: 428, no hook, no transaction', async (_name, url, body) => {
    let status = 0;
    let code = '';
    const n = await transactions(async () => {
      const r = await t.call(_name.startsWith('PUT') ? 'PUT' : 'PATCH', url(), { body });
      status = r.status;
      code = r.json?.error?.code;
    });
    expect([status, code, called, n]).toEqual([428, 'BadRequest_InvalidToken', [], 0]);
  });

  test('media PUT without If-Match: 428, no hook, no transaction', async () => {
    const n = await transactions(async () => {
      const r = await t.call('PUT', `${eco}/changeDescription`, { body: 'text', headers: { 'Content-Type': 'text/plain' } });
      expect(r.status).toBe(428);
    });
    expect([called, n]).toEqual([[], 0]);
  });

  test('with If-Match the hook runs, so the checks above can fail', async () => {
    const etag = (await t.call('GET', ecn)).headers['ETag'] as string;
    const r = await t.call('PATCH', ecn, { body: { drawingNumber: 'D-ok' }, headers: { 'If-Match': etag } });
    expect([r.status, called]).toEqual([200, ['ECN update']]);
  });
});

describe('an If-Match or If-None-Match that is not an entity tag', () => {
  let t: TestService;
  let ecn: string;
  beforeAll(async () => {
    t = await startTestService({ metadataDir: REPO_METADATA });
    const c = `/companies(${t.companyIds[0]})`;
    ecn = `${c}/engChangeNotices(${(await t.call('GET', `${c}/engChangeNotices?$top=1&$select=id`)).json.value[0].id})`;
  });
  afterAll(() => t.close());

  test.each([
    ['PATCH', 'If-Match', 'hello'],
    ['PATCH', 'If-Match', 'W/abc'],
    ['PATCH', 'If-Match', '"a", b'],
    ['DELETE', 'If-Match', 'W/"unclosed'],
    ['GET', 'If-None-Match', 'hello'],
  ])('%s with %s: %s is a 400 saying it is not an entity tag (not the 412 of a stale one)', async (method, header, value) => {
    const r = await t.call(method, ecn, { headers: { [header]: value }, ...(method === 'PATCH' ? { body: { drawingNumber: 'X' } } : {}) });
    expect([r.status, r.json.error.code, r.json.error.target]).toEqual([400, 'BadRequest_InvalidToken', header]);
    expect(r.json.error.message).toContain('is not an entity tag');
  });

  test('well-formed tags that do not match are still 412, and * and lists are accepted', async () => {
    const stale = await t.call('PATCH', ecn, { body: { drawingNumber: 'X' }, headers: { 'If-Match': 'W/"MTIz"' } });
    expect(stale.status).toBe(412);
    const etag = (await t.call('GET', ecn)).headers['ETag'] as string;
    expect((await t.call('PATCH', ecn, { body: { drawingNumber: 'Y' }, headers: { 'If-Match': `W/"MTIz", ${etag}` } })).status).toBe(200);
    expect((await t.call('PATCH', ecn, { body: { drawingNumber: 'Z' }, headers: { 'If-Match': '*' } })).status).toBe(200);
  });
});
