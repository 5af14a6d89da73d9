/**
 * GETs by key with no query options are bound once per path shape (core/key-read-paths.ts) and answered
 * on a kept plan (core/operations/read-by-key.ts). They must answer exactly as the general route: the
 * same request with an ignored custom query option (`x=1`) goes the general way, and both answers must
 * agree in status, headers and body for every principal, path form, Accept header and method below,
 * each asked several times so that shapes and plans are learnt and then used.
 */
import { startTestService, type TestResponse, type TestService } from '../helpers/test-service.js';

let t: TestService;
let cronus: string;
let fabrikam: string;
let ecn: string;
let fabrikamEcn: string;
let task: string;
const tokens: Record<string, string> = {};
const UNKNOWN = '00000000-0000-4000-8000-00000000abcd';

beforeAll(async () => {
  t = await startTestService();
  const companies = await t.call('GET', '/companies?$select=id,name');
  const id = (name: string): string => (companies.json.value as { id: string; name: string }[]).find((c) => c.name.toUpperCase().includes(name))?.id as string;
  cronus = id('CRONUS');
  fabrikam = id('FABRIKAM');
  ecn = (await t.call('GET', `/companies(${cronus})/engChangeNotices?$top=1&$select=id`)).json.value[0].id;
  fabrikamEcn = (await t.call('GET', `/companies(${fabrikam})/engChangeNotices?$top=1&$select=id`)).json.value[0].id;
  task = (await t.call('GET', `/companies(${cronus})/engChangeOrderTasks?$top=1&$select=id`)).json.value[0].id;
  for (const user of ['ADMIN', 'KLEE', 'PLANNER', 'AUDITOR']) tokens[user] = await t.token(user);
});
afterAll(() => t.close());

/** What must agree: status, body and headers. */
function answer(r: TestResponse): unknown {
  return { status: r.status, headers: r.headers, body: r.text };
}

async function agree(method: string, path: string, user: string, headers: Record<string, string> = {}): Promise<TestResponse> {
  const init = { token: tokens[user] as string, headers };
  const general = await t.call(method, `${path}?x=1`, init);
  for (let i = 0; i < 3; i++) {
    const keyed = await t.call(method, path, init);
    expect(answer(keyed)).toEqual(answer(general));
  }
  return general;
}

describe('GET by key on a kept plan answers as the general route', () => {
  const paths = (): Array<[string, string]> => [
    ['company-scoped', `/companies(${cronus})/engChangeNotices(${ecn})`],
    ['named key', `/companies(id=${cronus})/engChangeNotices(id=${ecn})`],
    ['upper-case GUIDs', `/companies(${cronus.toUpperCase()})/engChangeNotices(${ecn.toUpperCase()})`],
    ['unscoped', `/engChangeNotices(${ecn})`],
    ['another company', `/companies(${fabrikam})/engChangeNotices(${fabrikamEcn})`],
    ['an ECN of another company', `/companies(${cronus})/engChangeNotices(${fabrikamEcn})`],
    ['task', `/companies(${cronus})/engChangeOrderTasks(${task})`],
    ['unknown key', `/companies(${cronus})/engChangeNotices(${UNKNOWN})`],
    ['unknown company', `/companies(${UNKNOWN})/engChangeNotices(${ecn})`],
    ['the company itself', `/companies(${cronus})`],
  ];

  it.each(['ADMIN', 'KLEE', 'PLANNER', 'AUDITOR'])('for %s, on every path form', async (user) => {
    const statuses: number[] = [];
    for (const [, path] of paths()) statuses.push((await agree('GET', path, user)).status);
    if (user === 'ADMIN') expect(statuses).toEqual([200, 200, 200, 200, 200, 404, 200, 404, 403, 200]);
    if (user === 'PLANNER') expect(statuses.slice(0, 3)).toEqual([403, 403, 403]);
    if (user === 'AUDITOR') expect(statuses[0]).toBe(403);
  });

  it.each<[string, Record<string, string>]>([
    ['no Accept', {}],
    ['application/json', { accept: 'application/json' }],
    ['full metadata', { accept: 'application/json;odata.metadata=full' }],
    ['no metadata', { accept: 'application/json;odata.metadata=none' }],
    ['IEEE754 compatible', { accept: 'application/json;IEEE754Compatible=true' }],
    ['text/html', { accept: 'text/html' }],
  ])('with %s', async (_, headers) => {
    const r = await agree('GET', `/companies(${cronus})/engChangeNotices(${ecn})`, 'ADMIN', headers);
    expect(r.status).toBe(headers['accept'] === 'text/html' ? 406 : 200);
  });

  it('for HEAD', async () => {
    expect((await agree('HEAD', `/companies(${cronus})/engChangeNotices(${ecn})`, 'ADMIN')).status).toBe(200);
  });

  it('after the entity changes (the kept plan reads the current row and ETag)', async () => {
    const path = `/companies(${cronus})/engChangeNotices(${ecn})`;
    const before = await agree('GET', path, 'ADMIN');
    const patched = await t.call('PATCH', path, { headers: { 'if-match': before.headers['ETag'] as string }, body: { drawingNumber: 'KEY-READ-1' } });
    expect(patched.status).toBe(200);
    const after = await agree('GET', path, 'ADMIN');
    expect(after.json.drawingNumber).toBe('KEY-READ-1');
    expect(after.headers['ETag']).not.toBe(before.headers['ETag']);
  });

  it('with If-None-Match or If-Match, which the general route answers (conditional-get.ts)', async () => {
    const path = `/companies(${cronus})/engChangeNotices(${ecn})`;
    const etag = (await t.call('GET', path)).headers['ETag'] as string;
    // An ECN has computed properties: its GET is answered in full whatever If-None-Match says.
    expect((await agree('GET', path, 'ADMIN', { 'if-none-match': etag })).status).toBe(200);
    expect((await agree('GET', path, 'ADMIN', { 'if-match': 'W/"other"' })).status).toBe(412);
  });
});
