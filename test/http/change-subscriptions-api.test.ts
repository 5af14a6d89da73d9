/**
 * The HTTP surface of entity-change subscriptions (conventions §12) on the shipped model, against a
 * real receiver on 127.0.0.1: create in every resource form (201, Location, a 32-hex key, the fields,
 * the ETag and the secret once), the refused resources (400 naming resource), company access and read
 * permission (403s), the handshake (failed: 400, nothing stored), the list (own rows, and with SUPER the
 * company's), other users' subscriptions (404), PATCH renewals (If-Match, resource, a new handshake,
 * expirationDateTime), DELETE (If-Match required), the limits across both kinds of subscriptions,
 * PATCH of the business event's subscriptions, and webhookSupportedResources.
 */
import { REPO_METADATA, startTestService, type TestResponse, type TestService } from '../helpers/test-service.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { metadataWithLimits } from '../helpers/metadata-copy.js';
import { expectError } from '../rules/rule-helpers.js';

const SET = '/subscriptions';
const SECRET = '@Microsoft.NAV.secret';
const APP_ID = '386390e8-f22c-4a6e-bad6-7699b9547004';
const DAY = 24 * 3600_000;
const FIELD_ERROR = 'Application_FieldValidationException';

let t: TestService;
let receiver: Receiver;
let cronus = '';
let fabrikam = '';
const tokens: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestService({ metadataDir: REPO_METADATA, webhooks: { allowPrivate: true, handshakeTimeoutMs: 300 } });
  [cronus, fabrikam] = t.companyIds as [string, string];
  for (const user of ['JSMITH', 'KLEE', 'PLANNER', 'AUDITOR']) tokens[user] = await t.token(user);
  receiver = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});
beforeEach(() => receiver.behave({}));

/** A request as `user` (ADMIN when not said). */
function as(user: string | undefined, method: string, url: string, init: { body?: unknown; headers?: Record<string, string> } = {}): Promise<TestResponse> {
  return t.call(method, url, { ...init, ...(user === undefined || user === 'ADMIN' ? {} : { token: tokens[user] ?? null }) });
}

function body(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { notificationUrl: `${receiver.url}/hooks/changes`, resource: `companies(${cronus})/engChangeNotices`, clientState: 'state-1', ...overrides };
}

async function count(): Promise<number> {
  return Number((await t.query('SELECT count(*) AS n FROM subscriptions'))[0]?.['n']);
}

/** Creates a subscription as `user`; the 201's body. */
async function subscribe(user: string | undefined, overrides: Record<string, unknown> = {}): Promise<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
  const r = await as(user, 'POST', SET, { body: body(overrides) });
  if (r.status !== 201) throw new Error(`subscribe: ${r.status} ${r.text}`);
  return r.json;
}

function byKey(id: string): string {
  return `${SET}('${id}')`;
}

describe('create', () => {
  const forms: [string, (company: string) => string][] = [
    ['relative to the service root', (c) => `companies(${c})/engChangeNotices`],
    ['absolute', (c) => `http://localhost/api/v2.0/companies(${c})/engChangeNoticeComments`],
    ["as Business Central writes it, with the leading slash", (c) => `/api/v2.0/companies(${c})/engChangeOrders`],
    ['as Business Central writes it, without the leading slash', (c) => `api/v2.0/companies(${c})/engChangeOrderTasks`],
  ];
  test.each(forms)('resource %s: 201 with Location, a 32-hex key, the fields, the ETag and the secret once', async (_form, resourceOf) => {
    const resource = resourceOf(cronus);
    const handshakes = receiver.handshakes.length;
    const before = Date.now();
    const r = await as('KLEE', 'POST', SET, { body: body({ resource }) });
    expect([r.status, r.text]).toEqual([201, expect.any(String)]);
    expect(receiver.handshakes).toHaveLength(handshakes + 1);
    const id: string = r.json.subscriptionId;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(r.json).toEqual({
      '@odata.context': 'http://localhost/api/v2.0/$metadata#subscriptions/$entity',
      '@odata.etag': expect.stringMatching(/^W\/"/),
      [SECRET]: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      subscriptionId: id,
      notificationUrl: `${receiver.url}/hooks/changes`,
      resource,
      clientState: 'state-1',
      userId: 'KLEE',
      companyId: cronus,
      expirationDateTime: expect.any(String),
      lastModifiedDateTime: expect.any(String),
    });
    const expires = Date.parse(r.json.expirationDateTime);
    expect(expires).toBeGreaterThanOrEqual(before + 3 * DAY);
    expect(expires).toBeLessThanOrEqual(Date.now() + 3 * DAY);
    expect(r.headers['Location']).toBe(`http://localhost/api/v2.0/subscriptions('${id}')`);
    expect(r.headers['ETag']).toBe(r.json['@odata.etag']);
    // The secret is never readable again.
    for (const url of [byKey(id), SET, `${SET}?$select=subscriptionId,resource`]) {
      const read = await as('KLEE', 'GET', url);
      expect([url, read.status]).toEqual([url, 200]);
      expect(read.text).not.toContain(r.json[SECRET]);
    }
  });

  test('two creates get different keys; Prefer: return=minimal still answers 201 with the secret', async () => {
    const a = await subscribe('KLEE');
    const r = await as('KLEE', 'POST', SET, { body: body(), headers: { Prefer: 'return=minimal' } });
    expect(r.status).toBe(201);
    expect(r.json[SECRET]).toMatch(/^whsec_/);
    expect(r.json.subscriptionId).not.toBe(a.subscriptionId);
  });

  test('keys, companyId, userId and expirationDateTime in the body are ignored', async () => {
    const r = await as('KLEE', 'POST', SET, { body: body({ subscriptionId: 'f'.repeat(32), companyId: fabrikam, userId: 'ADMIN', expirationDateTime: '2099-01-01T00:00:00Z' }) });
    expect(r.status).toBe(201);
    expect(r.json.subscriptionId).not.toBe('f'.repeat(32));
    expect([r.json.companyId, r.json.userId]).toEqual([cronus, 'KLEE']);
    expect(Date.parse(r.json.expirationDateTime)).toBeLessThan(Date.now() + 4 * DAY);
  });

  const refusedResources: [string, (company: string) => unknown, RegExp][] = [
    ['an unknown set', (c) => `companies(${c})/noSuchSet`, /'noSuchSet', which is not an entity set; subscribable sets: .*engChangeNotices/],
    ['a set that is not subscribable', (c) => `companies(${c})/engChangeNoticeBOMLines`, /'engChangeNoticeBOMLines', which cannot be subscribed to/],
    ['a set without a company', () => 'engChangeNotices', /is not a company's collection/],
    ['a company id that is no GUID', () => 'companies(CRONUS)/engChangeNotices', /'CRONUS' .* is not a GUID/],
    ['an entity instead of a collection', (c) => `companies(${c})/engChangeNotices(${c})`, /is not a company's collection/],
    ['a URL with a query', (c) => `http://localhost/api/v2.0/companies(${c})/engChangeNotices?$top=1`, /is not a company's collection/],
    ['another service root', (c) => `/api/v1.0/companies(${c})/engChangeNotices`, /is not a company's collection/],
    ['an empty text', () => '', /must name a company's collection/],
    ['no resource at all', () => undefined, /must name a company's collection/],
  ];
  test.each(refusedResources)('%s: 400 naming resource, no handshake, nothing stored', async (_what, resourceOf, message) => {
    const before = await count();
    const handshakes = receiver.handshakes.length;
    const resource = resourceOf(cronus);
    const r = await as('KLEE', 'POST', SET, { body: resource === undefined ? { notificationUrl: `${receiver.url}/x` } : body({ resource }) });
    expect(r.status).toBe(400);
    expect(r.json.error.target).toBe('resource');
    expect(r.json.error.message).toMatch(message);
    expect(receiver.handshakes).toHaveLength(handshakes);
    expect(await count()).toBe(before);
  });

  test('a company without a grant, or none at all: 403 Authorization_CompanyAccessDenied alike, nothing stored', async () => {
    const before = await count();
    for (const company of [fabrikam, '00000000-0000-4000-8000-000000000001']) {
      const r = await as('KLEE', 'POST', SET, { body: body({ resource: `companies(${company})/engChangeNotices` }) });
      expectError(r, 403, 'Authorization_CompanyAccessDenied', 'You do not have access to this company, or it does not exist.');
      expect(r.headers['WWW-Authenticate']).toBeUndefined();
    }
    expect(await count()).toBe(before);
  });

  test("a grant without the set's read permission: 403 Authorization_PermissionDenied; with it (a write set includes read): 201", async () => {
    const before = await count();
    const r = await as('PLANNER', 'POST', SET, { body: body({ resource: `companies(${cronus})/engChangeNotices` }) });
    expectError(r, 403, 'Authorization_PermissionDenied', '(TableData engChangeNotice Read: needs permission set ECN-READ)');
    expect(await count()).toBe(before);
    expect((await as('PLANNER', 'POST', SET, { body: body({ resource: `companies(${cronus})/engChangeOrderTasks` }) })).status).toBe(201);
  });

  test('a failed handshake: 400 naming notificationUrl, nothing stored', async () => {
    const before = await count();
    receiver.behave({ handshake: () => ({ status: 200, body: 'not the token' }) });
    const wrong = await as('KLEE', 'POST', SET, { body: body() });
    expectError(wrong, 400, 'Application_DialogException', 'failed the validation handshake', 'notificationUrl');
    receiver.behave({ handshake: () => ({ status: 500, body: '' }) });
    expectError(await as('KLEE', 'POST', SET, { body: body() }), 400, 'Application_DialogException', 'it answered 500');
    expect(await count()).toBe(before);
  });

  test('a notificationUrl that is not http(s), and a clientState over 2,048 characters: 400 naming the field', async () => {
    expectError(await as('KLEE', 'POST', SET, { body: body({ notificationUrl: 'ftp://example.com/x' }) }), 400, FIELD_ERROR, 'must use http or https', 'notificationUrl');
    const long = await as('KLEE', 'POST', SET, { body: body({ clientState: 'x'.repeat(2049) }) });
    expect([long.status, long.json.error.target]).toEqual([400, 'clientState']);
  });
});

describe('who sees and changes what', () => {
  let klees = '';
  let jsmiths = '';
  let auditors = '';
  let admins = '';
  beforeAll(async () => {
    klees = (await subscribe('KLEE')).subscriptionId;
    jsmiths = (await subscribe('JSMITH')).subscriptionId;
    auditors = (await subscribe('AUDITOR', { resource: `companies(${fabrikam})/engChangeNotices` })).subscriptionId;
    admins = (await subscribe('ADMIN', { resource: `companies(${fabrikam})/engChangeOrders` })).subscriptionId;
  });

  async function ids(user: string): Promise<string[]> {
    const r = await as(user, 'GET', SET);
    expect(r.status).toBe(200);
    expect(r.json['@odata.context']).toBe('http://localhost/api/v2.0/$metadata#subscriptions');
    return (r.json.value as { subscriptionId: string }[]).map((s) => s.subscriptionId);
  }

  test('the list shows the caller its own subscriptions only', async () => {
    const klee = await ids('KLEE');
    expect(klee).toContain(klees);
    expect(klee).not.toContain(jsmiths);
    expect(klee).not.toContain(auditors);
    const rows = (await as('KLEE', 'GET', SET)).json.value as { userId: string }[];
    expect(new Set(rows.map((r) => r.userId))).toEqual(new Set(['KLEE']));
    expect(await ids('AUDITOR')).toEqual([auditors]);
  });

  test("with SUPER in a company, every subscription of that company (and the caller's own)", async () => {
    const admin = await ids('ADMIN');
    expect(admin).toEqual(expect.arrayContaining([klees, jsmiths, auditors, admins]));
    expect(admin).toHaveLength(await count());
    // $filter and $count stay within what the caller may see.
    const filtered = await as('JSMITH', 'GET', `${SET}?$filter=userId eq 'KLEE'&$count=true`);
    expect([filtered.status, filtered.json['@odata.count'], filtered.json.value]).toEqual([200, 0, []]);
    expect((await as('KLEE', 'GET', `${SET}/$count`)).text).toBe(String((await ids('KLEE')).length));
  });

  test("another user's subscription is a 404 for GET, PATCH and DELETE, as a missing one is; nothing changes", async () => {
    const missing = await as('JSMITH', 'GET', byKey('0'.repeat(32)));
    expect([missing.status, missing.json.error.code]).toEqual([404, 'Internal_RecordNotFound']);
    const etag = (await as('KLEE', 'GET', byKey(klees))).json['@odata.etag'];
    const handshakes = receiver.handshakes.length;
    for (const [method, init] of [['GET', {}], ['PATCH', { body: { clientState: 'taken' }, headers: { 'If-Match': '*' } }], ['DELETE', { headers: { 'If-Match': '*' } }]] as const) {
      const r = await as('JSMITH', method, byKey(klees), init);
      expect([method, r.status, r.json.error.code, r.json.error.message]).toEqual([method, 404, missing.json.error.code, missing.json.error.message.replace('0'.repeat(32), klees)]);
    }
    expect(receiver.handshakes).toHaveLength(handshakes);
    expect((await as('KLEE', 'GET', byKey(klees))).json['@odata.etag']).toBe(etag);
    // AUDITOR's own company, but no SUPER: ADMIN's subscription there stays hidden.
    expect((await as('AUDITOR', 'GET', byKey(admins))).status).toBe(404);
  });

  test("SUPER in the subscription's company sees and renews it", async () => {
    const r = await as('ADMIN', 'GET', byKey(klees));
    expect([r.status, r.json.userId]).toEqual([200, 'KLEE']);
    const renewed = await as('ADMIN', 'PATCH', byKey(klees), { body: { clientState: 'by admin' }, headers: { 'If-Match': r.json['@odata.etag'] } });
    expect([renewed.status, renewed.json.clientState, renewed.json.userId]).toEqual([200, 'by admin', 'KLEE']);
  });
});

describe('PATCH renews', () => {
  let sub: Record<string, any> = {}; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
  beforeEach(async () => {
    sub = await subscribe('KLEE', { resource: `/api/v2.0/companies(${cronus})/engChangeNotices` });
  });

  async function stored(): Promise<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
    return (await as('KLEE', 'GET', byKey(sub.subscriptionId))).json;
  }

  test('without If-Match: 428 before any handshake', async () => {
    const handshakes = receiver.handshakes.length;
    expectError(await as('KLEE', 'PATCH', byKey(sub.subscriptionId), { body: { clientState: 'x' } }), 428, 'BadRequest_InvalidToken', /If-Match/);
    expect(receiver.handshakes).toHaveLength(handshakes);
  });

  test('a stale If-Match: 412, nothing changes', async () => {
    await as('KLEE', 'PATCH', byKey(sub.subscriptionId), { body: {}, headers: { 'If-Match': sub['@odata.etag'] } });
    const before = await stored();
    const r = await as('KLEE', 'PATCH', byKey(sub.subscriptionId), { body: { clientState: 'stale' }, headers: { 'If-Match': sub['@odata.etag'] } });
    expect([r.status, r.json.error.code]).toEqual([412, 'Request_EntityChanged']);
    expect(await stored()).toEqual(before);
  });

  test('an empty PATCH runs the handshake against the current notificationUrl and moves expirationDateTime', async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const handshakes = receiver.handshakes.length;
    const r = await as('KLEE', 'PATCH', byKey(sub.subscriptionId), { body: {}, headers: { 'If-Match': sub['@odata.etag'] } });
    expect(r.status).toBe(200);
    expect(receiver.handshakes).toHaveLength(handshakes + 1);
    expect(Date.parse(r.json.expirationDateTime)).toBeGreaterThan(Date.parse(sub.expirationDateTime));
    expect(Date.parse(r.json.expirationDateTime)).toBeLessThanOrEqual(Date.now() + 3 * DAY);
    expect(r.json['@odata.etag']).not.toBe(sub['@odata.etag']);
    expect(r.json[SECRET]).toBeUndefined();
  });

  test('a new notificationUrl and clientState: the handshake goes to the new URL', async () => {
    const paths: string[] = [];
    receiver.behave({ handshake: (token) => (paths.push('handshake'), { status: 200, body: token }) });
    const url = `${receiver.url}/hooks/moved`;
    const r = await as('KLEE', 'PATCH', byKey(sub.subscriptionId), { body: { notificationUrl: url, clientState: 'state-2' }, headers: { 'If-Match': sub['@odata.etag'] } });
    expect([r.status, r.json.notificationUrl, r.json.clientState]).toEqual([200, url, 'state-2']);
    expect(paths).toHaveLength(1);
    expect((await stored()).notificationUrl).toBe(url);
  });

  test('a receiver that stops echoing: 400 and nothing changes (not even expirationDateTime)', async () => {
    const before = await stored();
    receiver.behave({ handshake: () => ({ status: 200, body: 'no' }) });
    for (const change of [{}, { clientState: 'new' }, { notificationUrl: `${receiver.url}/elsewhere` }]) {
      const r = await as('KLEE', 'PATCH', byKey(sub.subscriptionId), { body: change, headers: { 'If-Match': '*' } });
      expectError(r, 400, 'Application_DialogException', 'failed the validation handshake', 'notificationUrl');
    }
    expect(await stored()).toEqual(before);
  });

  test('the same resource in another accepted form is fine, and the stored text stays', async () => {
    for (const resource of [`companies(${cronus})/engChangeNotices`, `http://localhost/api/v2.0/companies(${cronus.toUpperCase()})/engChangeNotices`]) {
      const r = await as('KLEE', 'PATCH', byKey(sub.subscriptionId), { body: { resource }, headers: { 'If-Match': '*' } });
      expect([r.status, r.json.resource]).toEqual([200, sub.resource]);
    }
  });

  test('another company or another set: 400 naming resource, nothing changes', async () => {
    const before = await stored();
    for (const resource of [`companies(${fabrikam})/engChangeNotices`, `companies(${cronus})/engChangeNoticeComments`, 'nonsense', `companies(${cronus})/engChangeNoticeBOMLines`]) {
      const r = await as('KLEE', 'PATCH', byKey(sub.subscriptionId), { body: { resource }, headers: { 'If-Match': '*' } });
      expect([resource, r.status, r.json.error.target]).toEqual([resource, 400, 'resource']);
    }
    expect(await stored()).toEqual(before);
  });
});

describe('DELETE', () => {
  test('without If-Match: 428 and the subscription stays; stale: 412; with the ETag: 204, then 404', async () => {
    const sub = await subscribe('KLEE');
    const url = byKey(sub.subscriptionId);
    expectError(await as('KLEE', 'DELETE', url), 428, 'BadRequest_InvalidToken', /If-Match/);
    expect((await as('KLEE', 'GET', url)).status).toBe(200);
    await as('KLEE', 'PATCH', url, { body: {}, headers: { 'If-Match': '*' } });
    expect((await as('KLEE', 'DELETE', url, { headers: { 'If-Match': sub['@odata.etag'] } })).status).toBe(412);
    const current = (await as('KLEE', 'GET', url)).json['@odata.etag'];
    const r = await as('KLEE', 'DELETE', url, { headers: { 'If-Match': current } });
    expect(r.status).toBe(204);
    expect((await as('KLEE', 'GET', url)).status).toBe(404);
  });

  test('If-Match: * deletes too', async () => {
    const sub = await subscribe('KLEE');
    expect((await as('KLEE', 'DELETE', byKey(sub.subscriptionId), { headers: { 'If-Match': '*' } })).status).toBe(204);
  });
});

describe('the business event subscriptions (externaleventsubscriptions)', () => {
  const EVENTS = '/externaleventsubscriptions';
  let sub: Record<string, any> = {}; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
  beforeEach(async () => {
    const r = await as('JSMITH', 'POST', EVENTS, {
      body: { companyId: cronus, appId: APP_ID, eventName: 'EngChangeOrderTaskActivated', eventVersion: '1.0', notificationUrl: `${receiver.url}/hooks/eco`, clientState: 'a' },
    });
    expect(r.status).toBe(201);
    sub = r.json;
  });

  test('PATCH without If-Match: 428', async () => {
    expectError(await as('JSMITH', 'PATCH', `${EVENTS}(${sub.id})`, { body: { clientState: 'b' } }), 428, 'BadRequest_InvalidToken', /If-Match/);
  });

  test('PATCH of clientState: a new handshake against the current notificationUrl', async () => {
    const handshakes = receiver.handshakes.length;
    const r = await as('JSMITH', 'PATCH', `${EVENTS}(${sub.id})`, { body: { clientState: 'b' }, headers: { 'If-Match': sub['@odata.etag'] } });
    expect([r.status, r.json.clientState, r.json.notificationUrl]).toEqual([200, 'b', sub.notificationUrl]);
    expect(receiver.handshakes).toHaveLength(handshakes + 1);
  });

  test('PATCH of notificationUrl: the handshake goes to the new one; a failed handshake changes nothing', async () => {
    const url = `${receiver.url}/hooks/eco-2`;
    const r = await as('JSMITH', 'PATCH', `${EVENTS}(${sub.id})`, { body: { notificationUrl: url }, headers: { 'If-Match': '*' } });
    expect([r.status, r.json.notificationUrl]).toEqual([200, url]);
    receiver.behave({ handshake: () => ({ status: 404, body: '' }) });
    const before = (await as('JSMITH', 'GET', `${EVENTS}(${sub.id})`)).json;
    for (const change of [{ clientState: 'c' }, { notificationUrl: `${receiver.url}/hooks/eco-3` }]) {
      expectError(await as('JSMITH', 'PATCH', `${EVENTS}(${sub.id})`, { body: change, headers: { 'If-Match': '*' } }), 400, 'Application_DialogException', 'it answered 404', 'notificationUrl');
    }
    expect((await as('JSMITH', 'GET', `${EVENTS}(${sub.id})`)).json).toEqual(before);
  });

  test('the other fields stay as created (create-only fields in a PATCH are ignored)', async () => {
    const r = await as('JSMITH', 'PATCH', `${EVENTS}(${sub.id})`, { body: { eventVersion: '2.0', companyId: fabrikam, clientState: 'd' }, headers: { 'If-Match': '*' } });
    expect([r.status, r.json.eventVersion, r.json.companyId, r.json.clientState]).toEqual([200, '1.0', cronus, 'd']);
  });

  test('DELETE checks If-Match only when sent', async () => {
    expect((await as('JSMITH', 'DELETE', `${EVENTS}(${sub.id})`, { headers: { 'If-Match': 'W/"bm90LXRoaXMtb25l"' } })).status).toBe(412);
    expect((await as('JSMITH', 'DELETE', `${EVENTS}(${sub.id})`)).status).toBe(204);
  });
});

describe('webhookSupportedResources', () => {
  test('lists the subscribable sets of the model to any authenticated user, not company-scoped', async () => {
    for (const user of ['ADMIN', 'AUDITOR', 'PLANNER']) {
      const r = await as(user, 'GET', '/webhookSupportedResources');
      expect(r.status).toBe(200);
      expect(r.json['@odata.context']).toBe('http://localhost/api/v2.0/$metadata#webhookSupportedResources');
      expect((r.json.value as { resource: string }[]).map((v) => v.resource).sort()).toEqual(['engChangeNoticeComments', 'engChangeNotices', 'engChangeOrderTasks', 'engChangeOrders']);
    }
    expect((await as('AUDITOR', 'GET', `/companies(${fabrikam})/webhookSupportedResources`)).status).toBe(404);
    expect((await t.call('GET', '/webhookSupportedResources', { token: null })).status).toBe(401);
  });

  test('clients only read it: POST, PATCH, DELETE are 405', async () => {
    expect((await as('ADMIN', 'POST', '/webhookSupportedResources', { body: { resource: 'x' } })).status).toBe(405);
    expect((await as('ADMIN', 'DELETE', "/webhookSupportedResources('engChangeNotices')", { headers: { 'If-Match': '*' } })).status).toBe(405);
    const one = await as('ADMIN', 'GET', "/webhookSupportedResources('engChangeNotices')");
    expect([one.status, one.json.resource]).toEqual([200, 'engChangeNotices']);
  });

  test('in the service document and $metadata', async () => {
    const doc = await as('ADMIN', 'GET', '/');
    expect((doc.json.value as { name: string; url: string }[]).filter((v) => v.name === 'webhookSupportedResources' || v.name === 'subscriptions').map((v) => v.url).sort()).toEqual(['subscriptions', 'webhookSupportedResources']);
    const metadata = await as('ADMIN', 'GET', '/$metadata');
    expect(metadata.text).toContain('<EntitySet Name="webhookSupportedResources" EntityType="Microsoft.NAV.webhookSupportedResource"');
    expect(metadata.text).toContain('<EntitySet Name="subscriptions" EntityType="Microsoft.NAV.subscription"');
  });
});

describe('limits, both kinds counted together', () => {
  let small: TestService;
  let smallReceiver: Receiver;
  let jsmith = '';
  let klee = '';
  let c = '';
  let f = '';
  beforeAll(async () => {
    small = await startTestService({ metadataDir: metadataWithLimits({ subscriptionsPerCompany: 4, subscriptionsPerUser: 2 }), webhooks: { allowPrivate: true, handshakeTimeoutMs: 300 } });
    [c, f] = small.companyIds as [string, string];
    jsmith = await small.token('JSMITH');
    klee = await small.token('KLEE');
    smallReceiver = await startReceiver();
  });
  afterAll(async () => {
    await small.close();
    await smallReceiver.close();
  });

  function change(token: string | undefined, company = c): Promise<TestResponse> {
    return small.call('POST', SET, { body: { notificationUrl: `${smallReceiver.url}/c`, resource: `companies(${company})/engChangeNotices` }, ...(token === undefined ? {} : { token }) });
  }
  function event(token: string | undefined, company = c): Promise<TestResponse> {
    return small.call('POST', '/externaleventsubscriptions', {
      body: { companyId: company, appId: APP_ID, eventName: 'EngChangeOrderTaskActivated', eventVersion: '1.0', notificationUrl: `${smallReceiver.url}/e` },
      ...(token === undefined ? {} : { token }),
    });
  }
  async function total(): Promise<number> {
    const a = Number((await small.query('SELECT count(*) AS n FROM subscriptions'))[0]?.['n']);
    const b = Number((await small.query('SELECT count(*) AS n FROM externaleventsubscriptions'))[0]?.['n']);
    return a + b;
  }

  test('per user in a company: one of each kind, then a third of either kind is a 400 naming limits.subscriptionsPerUser', async () => {
    expect((await change(jsmith)).status).toBe(201);
    expect((await event(jsmith)).status).toBe(201);
    const before = await total();
    for (const r of [await change(jsmith), await event(jsmith)]) {
      expectError(r, 400, 'Application_DialogException', 'limits.subscriptionsPerUser in service.json');
    }
    expect(await total()).toBe(before);
  });

  test('per company: 4 in all (another user, then ADMIN), whichever kind; another company is not counted', async () => {
    expect((await change(klee)).status).toBe(201);
    expect((await change(klee)).status).toBe(201);
    const before = await total();
    for (const r of [await change(undefined), await event(undefined)]) {
      expectError(r, 400, 'Application_DialogException', 'limits.subscriptionsPerCompany in service.json');
    }
    expect(await total()).toBe(before);
    expect((await change(undefined, f)).status).toBe(201);
    expect((await event(undefined, f)).status).toBe(201);
  });

  test('a deleted subscription makes room again', async () => {
    const own = (await small.call('GET', SET, { token: klee })).json.value as { subscriptionId: string }[];
    const first = own[0];
    if (first === undefined) throw new Error('KLEE has no subscription');
    expect((await small.call('DELETE', `${SET}('${first.subscriptionId}')`, { token: klee, headers: { 'If-Match': '*' } })).status).toBe(204);
    expect((await change(undefined)).status).toBe(201);
    expectError(await change(undefined), 400, 'Application_DialogException', 'limits.subscriptionsPerCompany');
  });

  test('concurrent creates cannot pass the limit together', async () => {
    const auditor = await small.token('AUDITOR');
    const answers = await Promise.all([1, 2, 3, 4].map(() => change(auditor, f)));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 201, 400, 400]);
    const n = Number((await small.query('SELECT count(*) AS n FROM subscriptions WHERE "userId" = ? AND "companyId" = ?', ['AUDITOR', f]))[0]?.['n']);
    expect(n).toBe(2);
  });
});

describe('OpenAPI', () => {
  test("DELETE of a subscription requires If-Match; a business event subscription's DELETE takes it optionally and has PATCH", async () => {
    const doc = (await as('ADMIN', 'GET', '/openapi.json')).json as { paths: Record<string, Record<string, { parameters?: { $ref?: string }[] }>> };
    const item = (prefix: string): Record<string, { parameters?: { $ref?: string }[] }> => {
      const found = Object.entries(doc.paths).find(([p]) => p.startsWith(`${prefix}(`) && !p.slice(prefix.length).includes('/'));
      if (found === undefined) throw new Error(`no path ${prefix}(...)`);
      return found[1];
    };
    const refs = (op: { parameters?: { $ref?: string }[] } | undefined): (string | undefined)[] => (op?.parameters ?? []).map((p) => p.$ref);
    expect(refs(item('/subscriptions')['delete'])).toContain('#/components/parameters/ifMatch');
    expect(refs(item('/subscriptions')['patch'])).toContain('#/components/parameters/ifMatch');
    expect(refs(item('/externaleventsubscriptions')['delete'])).toContain('#/components/parameters/ifMatchOptional');
    expect(refs(item('/externaleventsubscriptions')['patch'])).toContain('#/components/parameters/ifMatch');
  });
});
