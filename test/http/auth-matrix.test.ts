/**
 * Every route of service-interface.md, in both URL forms, for every kind of caller: no token, a bad
 * token, an expired JWT, a JWT for another audience, a user of another company, a read-only user, a
 * writer and SUPER (through a JWT). Statuses and codes as conventions §3; no response body ever holds
 * an id of a row in a company the caller has no grant in.
 */
import { startJwksServer, type JwksServer } from '../helpers/jwks-server.js';
import { startTestService, type TestResponse, type TestService } from '../helpers/test-service.js';

let t: TestService;
let jwks: JwksServer;
let cronus: string;
let idsOf: Map<string, Set<string>>;

beforeAll(async () => {
  jwks = await startJwksServer('api://ecn');
  t = await startTestService({ jwt: { issuer: jwks.issuer, audience: 'api://ecn', jwksUrl: jwks.url, userClaim: 'preferred_username', clockToleranceSeconds: 30, jwksCooldownMs: 0 } });
  cronus = t.companyIds[0] as string;
  // Every row id of every company-scoped table, by company.
  idsOf = new Map();
  for (const type of t.service.model.entityTypes) {
    if (type.scope !== 'company') continue;
    for (const r of (await t.query(`SELECT "id", "_companyId" AS c FROM "${type.table}"`)) as { id: string; c: string }[]) {
      let s = idsOf.get(r.c);
      if (s === undefined) idsOf.set(r.c, (s = new Set()));
      s.add(r.id);
    }
  }
});
afterAll(async () => {
  await t.close();
  await jwks.close();
});

type Caller = 'none' | 'bad token' | 'expired JWT' | 'wrong audience' | 'other company' | 'read-only' | 'writer' | 'SUPER';
const callers: Caller[] = ['none', 'bad token', 'expired JWT', 'wrong audience', 'other company', 'read-only', 'writer', 'SUPER'];

async function tokenFor(caller: Caller): Promise<string | null> {
  const now = Math.floor(Date.now() / 1000);
  switch (caller) {
    case 'none':
      return null;
    case 'bad token':
      return `ecn_0123456789abcdef_${'x'.repeat(43)}`;
    case 'expired JWT':
      return jwks.sign({ preferred_username: 'ADMIN' }, { expiresIn: now - 600 });
    case 'wrong audience':
      return jwks.sign({ preferred_username: 'ADMIN' }, { audience: 'api://something-else' });
    case 'other company':
      return await t.token('AUDITOR');
    case 'read-only':
      return await t.token('KLEE');
    case 'writer':
      return await t.token('JSMITH');
    case 'SUPER':
      return jwks.sign({ preferred_username: 'admin' }, { alg: 'ES256' });
  }
}

type Form = 'scoped' | 'unscoped';
interface Req {
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}
interface Route {
  name: string;
  method: string;
  write: boolean;
  ok: number;
  build: (p: string) => Promise<Req>;
}

const admin = async (method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse> => t.call(method, url, { body, headers });
const ecn = async (status?: string): Promise<{ id: string; etag: string }> => {
  const r = await admin('POST', `/companies(${cronus})/engChangeNotices`, { sourceType: 'Item', sourceNumber: 'M-1', changeReasonCode: 'COST' });
  if (status !== undefined) {
    const p = await admin('PATCH', `/companies(${cronus})/engChangeNotices(${r.json.id})`, { status }, { 'If-Match': '*' });
    return { id: p.json.id, etag: p.json['@odata.etag'] };
  }
  return { id: r.json.id, etag: r.json['@odata.etag'] };
};
const comment = async (ecnId: string): Promise<string> => (await admin('POST', `/companies(${cronus})/engChangeNotices(${ecnId})/engChangeNoticeComments`, { comment: 'm' })).json.id;
const seededEcn = async (): Promise<string> => (await admin('GET', `/companies(${cronus})/engChangeNotices?$top=1`)).json.value[0].id;
const bomLine = async (ecnId: string): Promise<string> => (await admin('GET', `/companies(${cronus})/engChangeNotices(${ecnId})/engChangeNoticeBOMLines?$top=1`)).json.value[0].id;
const eco = async (): Promise<string> => (await admin('POST', `/companies(${cronus})/engChangeOrders`, { description: 'matrix' })).json.id;
const task = async (ecoId?: string): Promise<{ id: string; eco: string }> => {
  const e = ecoId ?? (await eco());
  return { id: (await admin('POST', `/companies(${cronus})/engChangeOrders(${e})/engChangeOrderTasks`, { description: 'm' })).json.id, eco: e };
};
const star = { 'If-Match': '*' };

const routes: Route[] = [
  { name: 'GET engChangeNotices', method: 'GET', write: false, ok: 200, build: async (p) => ({ path: `${p}/engChangeNotices` }) },
  { name: 'POST engChangeNotices', method: 'POST', write: true, ok: 201, build: async (p) => ({ path: `${p}/engChangeNotices`, body: { sourceType: 'Item', sourceNumber: 'N', changeReasonCode: 'COST' } }) },
  { name: 'GET engChangeNotices({id})', method: 'GET', write: false, ok: 200, build: async (p) => ({ path: `${p}/engChangeNotices(${await seededEcn()})` }) },
  { name: 'PATCH engChangeNotices({id})', method: 'PATCH', write: true, ok: 200, build: async (p) => ({ path: `${p}/engChangeNotices(${(await ecn()).id})`, body: { drawingNumber: 'D' }, headers: star }) },
  { name: 'DELETE engChangeNotices({id})', method: 'DELETE', write: true, ok: 204, build: async (p) => ({ path: `${p}/engChangeNotices(${(await ecn()).id})` }) },
  { name: 'POST createEngChangeOrder', method: 'POST', write: true, ok: 200, build: async (p) => ({ path: `${p}/engChangeNotices(${(await ecn('Approved')).id})/Microsoft.NAV.createEngChangeOrder` }) },
  { name: 'GET ECN comments', method: 'GET', write: false, ok: 200, build: async (p) => ({ path: `${p}/engChangeNotices(${await seededEcn()})/engChangeNoticeComments` }) },
  { name: 'POST ECN comments', method: 'POST', write: true, ok: 201, build: async (p) => ({ path: `${p}/engChangeNotices(${(await ecn()).id})/engChangeNoticeComments`, body: { comment: 'c' } }) },
  { name: 'GET ECN comment', method: 'GET', write: false, ok: 200, build: async (p) => { const e = (await ecn()).id; return { path: `${p}/engChangeNotices(${e})/engChangeNoticeComments(${await comment(e)})` }; } },
  { name: 'PATCH ECN comment', method: 'PATCH', write: true, ok: 200, build: async (p) => { const e = (await ecn()).id; return { path: `${p}/engChangeNotices(${e})/engChangeNoticeComments(${await comment(e)})`, body: { comment: 'x' }, headers: star }; } },
  { name: 'DELETE ECN comment', method: 'DELETE', write: true, ok: 204, build: async (p) => { const e = (await ecn()).id; return { path: `${p}/engChangeNotices(${e})/engChangeNoticeComments(${await comment(e)})` }; } },
  { name: 'GET ECN BOM lines', method: 'GET', write: false, ok: 200, build: async (p) => ({ path: `${p}/engChangeNotices(${await seededEcn()})/engChangeNoticeBOMLines` }) },
  { name: 'POST ECN BOM lines (blocked)', method: 'POST', write: true, ok: 405, build: async (p) => ({ path: `${p}/engChangeNotices(${await seededEcn()})/engChangeNoticeBOMLines`, body: { description: 'x' } }) },
  { name: 'GET ECN BOM line', method: 'GET', write: false, ok: 200, build: async (p) => { const e = await seededEcn(); return { path: `${p}/engChangeNotices(${e})/engChangeNoticeBOMLines(${await bomLine(e)})` }; } },
  { name: 'PATCH ECN BOM line', method: 'PATCH', write: true, ok: 200, build: async (p) => { const e = await seededEcn(); return { path: `${p}/engChangeNotices(${e})/engChangeNoticeBOMLines(${await bomLine(e)})`, body: { newItemNumber: 'X' }, headers: star }; } },
  { name: 'DELETE ECN BOM line (blocked)', method: 'DELETE', write: true, ok: 405, build: async (p) => { const e = await seededEcn(); return { path: `${p}/engChangeNotices(${e})/engChangeNoticeBOMLines(${await bomLine(e)})` }; } },
  { name: 'GET direct comments', method: 'GET', write: false, ok: 200, build: async (p) => ({ path: `${p}/engChangeNoticeComments` }) },
  { name: 'POST direct comments', method: 'POST', write: true, ok: 201, build: async (p) => ({ path: `${p}/engChangeNoticeComments`, body: { engChangeNoticeId: (await ecn()).id, comment: 'd' } }) },
  { name: 'GET direct comment', method: 'GET', write: false, ok: 200, build: async (p) => ({ path: `${p}/engChangeNoticeComments(${await comment((await ecn()).id)})` }) },
  { name: 'PATCH direct comment', method: 'PATCH', write: true, ok: 200, build: async (p) => ({ path: `${p}/engChangeNoticeComments(${await comment((await ecn()).id)})`, body: { comment: 'y' }, headers: star }) },
  { name: 'DELETE direct comment', method: 'DELETE', write: true, ok: 204, build: async (p) => ({ path: `${p}/engChangeNoticeComments(${await comment((await ecn()).id)})` }) },
  { name: 'GET direct BOM lines', method: 'GET', write: false, ok: 200, build: async (p) => ({ path: `${p}/engChangeNoticeBOMLines` }) },
  { name: 'POST direct BOM lines (blocked)', method: 'POST', write: true, ok: 405, build: async (p) => ({ path: `${p}/engChangeNoticeBOMLines`, body: { engChangeNoticeId: await seededEcn() } }) },
  { name: 'GET direct BOM line', method: 'GET', write: false, ok: 200, build: async (p) => ({ path: `${p}/engChangeNoticeBOMLines(${await bomLine(await seededEcn())})` }) },
  { name: 'PATCH direct BOM line', method: 'PATCH', write: true, ok: 200, build: async (p) => ({ path: `${p}/engChangeNoticeBOMLines(${await bomLine(await seededEcn())})`, body: { newItemNumber: 'Z' }, headers: star }) },
  { name: 'DELETE direct BOM line (blocked)', method: 'DELETE', write: true, ok: 405, build: async (p) => ({ path: `${p}/engChangeNoticeBOMLines(${await bomLine(await seededEcn())})` }) },
  { name: 'GET engChangeOrderTasks', method: 'GET', write: false, ok: 200, build: async (p) => ({ path: `${p}/engChangeOrderTasks` }) },
  { name: 'POST engChangeOrderTasks', method: 'POST', write: true, ok: 201, build: async (p) => ({ path: `${p}/engChangeOrderTasks`, body: { engChangeOrderId: await eco(), description: 't' } }) },
  { name: 'GET engChangeOrderTasks({id})', method: 'GET', write: false, ok: 200, build: async (p) => ({ path: `${p}/engChangeOrderTasks(${(await task()).id})` }) },
  { name: 'PATCH engChangeOrderTasks({id})', method: 'PATCH', write: true, ok: 200, build: async (p) => ({ path: `${p}/engChangeOrderTasks(${(await task()).id})`, body: { processedBy: 'X' }, headers: star }) },
  { name: 'DELETE engChangeOrderTasks({id})', method: 'DELETE', write: true, ok: 204, build: async (p) => ({ path: `${p}/engChangeOrderTasks(${(await task()).id})` }) },
  { name: 'GET task/engChangeOrder', method: 'GET', write: false, ok: 200, build: async (p) => ({ path: `${p}/engChangeOrderTasks(${(await task()).id})/engChangeOrder` }) },
  { name: 'PATCH task/engChangeOrder', method: 'PATCH', write: true, ok: 200, build: async (p) => ({ path: `${p}/engChangeOrderTasks(${(await task()).id})/engChangeOrder`, body: { description: 'e' }, headers: star }) },
  { name: 'DELETE task/engChangeOrder', method: 'DELETE', write: true, ok: 204, build: async (p) => ({ path: `${p}/engChangeOrderTasks(${(await task()).id})/engChangeOrder` }) },
  { name: 'GET changeDescription', method: 'GET', write: false, ok: 204, build: async (p) => ({ path: `${p}/engChangeOrderTasks(${(await task()).id})/engChangeOrder/changeDescription` }) },
  { name: 'PUT changeDescription', method: 'PUT', write: true, ok: 204, build: async (p) => ({ path: `${p}/engChangeOrderTasks(${(await task()).id})/engChangeOrder/changeDescription`, body: Buffer.from('text'), headers: { 'Content-Type': 'text/plain', 'If-Match': '*' } }) },
  { name: 'GET ECO tasks', method: 'GET', write: false, ok: 200, build: async (p) => ({ path: `${p}/engChangeOrders(${await eco()})/engChangeOrderTasks` }) },
  { name: 'POST ECO tasks', method: 'POST', write: true, ok: 201, build: async (p) => ({ path: `${p}/engChangeOrders(${await eco()})/engChangeOrderTasks`, body: { description: 'n' } }) },
  { name: 'GET ECO task', method: 'GET', write: false, ok: 200, build: async (p) => { const k = await task(); return { path: `${p}/engChangeOrders(${k.eco})/engChangeOrderTasks(${k.id})` }; } },
  { name: 'PATCH ECO task', method: 'PATCH', write: true, ok: 200, build: async (p) => { const k = await task(); return { path: `${p}/engChangeOrders(${k.eco})/engChangeOrderTasks(${k.id})`, body: { assignedTo: 'KLEE' }, headers: star }; } },
  { name: 'DELETE ECO task', method: 'DELETE', write: true, ok: 204, build: async (p) => { const k = await task(); return { path: `${p}/engChangeOrders(${k.eco})/engChangeOrderTasks(${k.id})` }; } },
];

function expected(route: Route, caller: Caller): { status: number; code?: string } {
  switch (caller) {
    case 'none':
    case 'bad token':
    case 'expired JWT':
    case 'wrong audience':
      return { status: 401, code: 'Authentication_InvalidCredentials' };
    case 'other company':
      return { status: 403, code: 'Authorization_CompanyAccessDenied' };
    case 'read-only':
      return route.write ? { status: 403, code: 'Authorization_PermissionDenied' } : { status: route.ok };
    case 'writer':
    case 'SUPER':
      return { status: route.ok };
  }
}

const cases = routes.flatMap((route) =>
  (['scoped', 'unscoped'] as Form[]).flatMap((form) => callers.map((caller) => ({ route, form, caller, label: `${route.name} (${form}) as ${caller}` }))),
);

test('the matrix covers every route in both forms for every caller', () => expect(cases.length).toBeGreaterThanOrEqual(8 * 50));

test.each(cases)('$label', async ({ route, form, caller }) => {
  const prefix = form === 'scoped' ? `/companies(${cronus})` : '';
  const req = await route.build(prefix);
  const path = form === 'unscoped' ? `${req.path}${req.path.includes('?') ? '&' : '?'}company=CRONUS` : req.path;
  const r = await t.call(route.method, path, { body: req.body, headers: req.headers, token: await tokenFor(caller) });
  const want = expected(route, caller);
  expect({ status: r.status, code: r.json?.error?.code }).toEqual({ status: want.status, code: want.code ?? r.json?.error?.code });
  if (want.status === 401) expect(r.headers['WWW-Authenticate']).toMatch(/^Bearer/);
  if (want.status >= 400) expect(r.json.error.code).toBe(want.code ?? r.json.error.code);
  // No row of a company the caller has no grant in.
  const granted = caller === 'SUPER' ? t.companyIds : caller === 'other company' ? [t.companyIds[1]] : caller === 'read-only' || caller === 'writer' ? [cronus] : [];
  for (const [company, ids] of idsOf) {
    if (granted.includes(company)) continue;
    for (const id of ids) expect(r.text).not.toContain(id);
  }
});

test('a user of one company reads its own rows through unscoped URLs and never the other company’s', async () => {
  const token = await t.token('AUDITOR');
  const list = await t.call('GET', '/engChangeNotices', { token });
  expect(list.status).toBe(200);
  const fabrikamIds = (await t.call('GET', `/companies(${t.companyIds[1]})/engChangeNotices`)).json.value.map((e: { id: string }) => e.id);
  expect(list.json.value.map((e: { id: string }) => e.id).sort()).toEqual([...fabrikamIds].sort());
  const companies = await t.call('GET', '/companies', { token });
  expect(companies.json.value.map((c: { name: string }) => c.name)).toEqual(['FABRIKAM']);
  expect((await t.call('GET', `/companies(${cronus})`, { token })).status).toBe(403);
  // $expand and $filter through navigations stay inside the company too.
  const cronusEcn = (await t.call('GET', `/companies(${cronus})/engChangeNotices?$top=1`)).json.value[0].id;
  expect((await t.call('GET', `/engChangeNotices(${cronusEcn})`, { token })).status).toBe(404);
  const expanded = await t.call('GET', `/engChangeNoticeComments?$expand=engChangeNotice`.replace('/engChangeNoticeComments', `/companies(${t.companyIds[1]})/engChangeNoticeComments`), { token });
  expect(expanded.status).toBe(200);
  for (const id of idsOf.get(cronus) ?? []) expect(expanded.text).not.toContain(id);
});

test('one query string sent again and again by users of two companies: each gets its own company’s rows every time', async () => {
  // From the third time on a query string shares one parse (uri/query-options-cache.ts) and the plans
  // keyed by it; what the core adds for the caller must still be the caller's.
  const auditor = await t.token('AUDITOR');
  const path = "/engChangeNotices?$filter=status ne 'Closed' or status eq 'Closed'&$select=id,number&$orderby=number";
  const answers: Record<string, string[][]> = { admin: [], auditor: [] };
  for (let i = 0; i < 4; i++) {
    for (const [who, token] of [['admin', undefined], ['auditor', auditor]] as const) {
      const r = await t.call('GET', `${path}&company=${who === 'admin' ? 'CRONUS' : 'FABRIKAM'}`, token === undefined ? {} : { token });
      expect(r.status).toBe(200);
      answers[who]?.push(r.json.value.map((e: { id: string }) => e.id));
    }
  }
  // The ECNs of each company now (the matrix above wrote some since beforeAll).
  const rows = (await t.query(`SELECT "id", "_companyId" AS c FROM "engChangeNotices"`)) as { id: string; c: string }[];
  const of = (company: string): Set<string> => new Set(rows.filter((r) => r.c === company).map((r) => r.id));
  const own = { admin: of(cronus), auditor: of(t.companyIds[1] as string) };
  for (const who of ['admin', 'auditor'] as const) {
    const first = answers[who]?.[0] ?? [];
    expect(first.length).toBeGreaterThan(0);
    for (const ids of answers[who] ?? []) {
      expect(ids).toEqual(first);
      for (const id of ids) expect(own[who].has(id)).toBe(true);
    }
  }
  // The auditor, with a grant in FABRIKAM only, asking for CRONUS by the same query string: refused every time.
  for (let i = 0; i < 3; i++) expect((await t.call('GET', `${path}&company=CRONUS`, { token: auditor })).status).toBe(403);
});

test('$expand and $filter into a type the caller may not read are 403', async () => {
  const planner = await t.token('PLANNER'); // TASK-WRITE only
  expect((await t.call('GET', '/engChangeOrderTasks?$top=1', { token: planner })).status).toBe(200);
  const r = await t.call('GET', '/engChangeNotices?$top=1', { token: planner });
  expect(r.status).toBe(403);
  expect(r.json.error.message).toBe('Sorry, the current permissions prevented the action. (TableData engChangeNotice Read: needs permission set ECN-READ)');
  const klee = await t.token('KLEE');
  expect((await t.call('GET', '/engChangeNotices?$expand=engChangeNoticeComments&$top=1', { token: klee })).status).toBe(200);
  expect((await t.call('GET', '/engChangeOrders?$expand=engChangeOrderTasks&$top=1', { token: planner })).status).toBe(200);
});

test('expired and revoked opaque tokens are refused; the token never appears in the error', async () => {
  const expired = (await t.service.context.tokens.issue('ADMIN', 1_000, new Date(Date.now() - 60_000))).token;
  const r = await t.call('GET', '/engChangeNotices', { token: expired });
  expect(r.status).toBe(401);
  expect(r.text).not.toContain(expired);
  const revoked = await t.token('ADMIN');
  await t.service.context.tokens.revoke({ token: revoked });
  expect((await t.call('GET', '/engChangeNotices', { token: revoked })).json.error.message).toMatch(/revoked/);
});

test('the service document and $metadata need no token', async () => {
  expect((await t.call('GET', '/', { token: null })).status).toBe(200);
  expect((await t.call('GET', '/$metadata', { token: null })).status).toBe(200);
});
