/**
 * POST/GET/DELETE {base_url}/externaleventsubscriptions (conventions §6) against a real receiver on
 * 127.0.0.1: the validation handshake (success, wrong echo, error status, redirect, timeout), the body
 * checks (scheme, known event and version, clientState length, private targets without the operator's
 * allowance), the caller's EVENTS permission in the company (403), the secret shown once, and the
 * list restricted to the companies where the caller holds EVENTS or SUPER.
 */
import { startTestService, type TestService } from '../helpers/test-service.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { expectError } from '../rules/rule-helpers.js';

const APP_ID = '386390e8-f22c-4a6e-bad6-7699b9547004';
const SET = '/externaleventsubscriptions';
const SECRET = '@Microsoft.NAV.secret';

let t: TestService;
let receiver: Receiver;
let cronus = '';
let fabrikam = '';

beforeAll(async () => {
  t = await startTestService({ webhooks: { allowPrivate: true, handshakeTimeoutMs: 300 } });
  [cronus, fabrikam] = t.companyIds as [string, string];
  receiver = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});
beforeEach(() => receiver.behave({}));

function body(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { companyId: cronus, appId: APP_ID, eventName: 'EngChangeOrderTaskActivated', eventVersion: '1.0', notificationUrl: `${receiver.url}/hooks/eco`, clientState: 'state-1', ...overrides };
}

async function count(): Promise<number> {
  return Number((await t.query('SELECT count(*) AS n FROM externaleventsubscriptions'))[0]?.['n']);
}

describe('the validation handshake', () => {
  test('an endpoint that echoes the token: 201 with the subscription and, once, its signing secret', async () => {
    const before = receiver.handshakes.length;
    const r = await t.call('POST', SET, { body: body() });
    expect(r.status).toBe(201);
    expect(receiver.handshakes).toHaveLength(before + 1);
    expect(r.json).toEqual({
      '@odata.context': 'http://localhost/api/v2.0/$metadata#externaleventsubscriptions/$entity',
      '@odata.etag': expect.any(String),
      [SECRET]: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      companyId: cronus,
      appId: APP_ID,
      eventName: 'EngChangeOrderTaskActivated',
      eventVersion: '1.0',
      notificationUrl: `${receiver.url}/hooks/eco`,
      clientState: 'state-1',
      subscriptionType: 'Webhook',
      subscriptionState: 'Active',
      userId: 'ADMIN',
      lastModifiedDateTime: expect.any(String),
    });
    expect(r.headers['Location']).toBe(`http://localhost/api/v2.0/externaleventsubscriptions(${r.json.id})`);
    const secret: string = r.json[SECRET];
    expect((await t.query('SELECT "_secret" AS s FROM externaleventsubscriptions WHERE id = ?', [r.json.id]))[0]).toEqual({ s: secret });
    // Never readable again: not by key, not in the list, not with $select, not in any metadata level.
    for (const url of [`${SET}(${r.json.id})`, SET, `${SET}?$select=id,notificationUrl`, `${SET}?$format=application/json;odata.metadata=full`]) {
      const read = await t.call('GET', url);
      expect([url, read.status]).toEqual([url, 200]);
      expect(read.text).not.toContain(secret);
      expect(read.text).not.toContain('secret');
    }
  });

  test('Prefer: return=minimal is not honoured: the secret is only ever in this response', async () => {
    const r = await t.call('POST', SET, { body: body(), headers: { Prefer: 'return=minimal' } });
    expect(r.status).toBe(201);
    expect(r.headers['Preference-Applied']).toBeUndefined();
    expect(r.json[SECRET]).toMatch(/^whsec_/);
  });

  test('the token echoed as a JSON string is accepted too', async () => {
    receiver.behave({ handshake: (token) => ({ status: 200, body: JSON.stringify(token), contentType: 'application/json' }) });
    expect((await t.call('POST', SET, { body: body() })).status).toBe(201);
  });

  test.each([
    ['a wrong echo', { handshake: () => ({ status: 200, body: 'something else' }) }, 'the body of its answer is not the validation token'],
    ['a 500', { handshake: () => ({ status: 500, body: 'boom' }) }, 'it answered 500'],
    ['a 404', { handshake: () => ({ status: 404, body: 'no' }) }, 'it answered 404'],
    ['a redirect', { handshake: () => ({ status: 302, body: '' }) }, 'it answered 302 (redirects are not followed)'],
    ['no answer in time', { handshake: () => 'hang' as const }, 'no answer within 0.3 seconds'],
  ])('%s: 400 Application_DialogException on notificationUrl, nothing stored', async (_what, behaviour, message) => {
    receiver.behave(behaviour);
    const before = (await count());
    const r = await t.call('POST', SET, { body: body() });
    expectError(r, 400, 'Application_DialogException', message, 'notificationUrl');
    expect(r.json.error.message).toContain('failed the validation handshake');
    expect((await count())).toBe(before);
  });

  test('a closed port: 400 saying the request failed', async () => {
    const closed = await startReceiver();
    const url = closed.url;
    await closed.close();
    const r = await t.call('POST', SET, { body: body({ notificationUrl: `${url}/gone` }) });
    expectError(r, 400, 'Application_DialogException', 'the request failed', 'notificationUrl');
  });
});

describe('validation of the request', () => {
  test.each([
    ['an ftp URL', { notificationUrl: 'ftp://example.com/hook' }, 'notificationUrl', 'must use http or https, not ftp'],
    ['a relative URL', { notificationUrl: '/hook' }, 'notificationUrl', 'is not an absolute URL'],
    ['credentials in the URL', { notificationUrl: 'http://user:pw@127.0.0.1:1/hook' }, 'notificationUrl', 'must not carry a user name or password'],
    ['an unknown event', { eventName: 'EngChangeOrderTaskStarted' }, 'eventName', "There is no business event 'EngChangeOrderTaskStarted'"],
    ['an unknown version', { eventVersion: '2.0' }, 'eventVersion', "has no version '2.0'"],
    ['another app', { appId: '00000000-0000-0000-0000-000000000001' }, 'appId', 'publishes no business events here'],
  ])('%s: 400 Application_FieldValidationException, no handshake', async (_what, overrides, target, message) => {
    const before = receiver.handshakes.length;
    expectError(await t.call('POST', SET, { body: body(overrides) }), 400, 'Application_FieldValidationException', message, target);
    expect(receiver.handshakes).toHaveLength(before);
  });

  test('clientState of 2,048 characters is accepted, 2,049 refused', async () => {
    expect((await t.call('POST', SET, { body: body({ clientState: 'x'.repeat(2048) }) })).status).toBe(201);
    const r = await t.call('POST', SET, { body: body({ clientState: 'x'.repeat(2049) }) });
    expect([r.status, r.json.error.target]).toEqual([400, 'clientState']);
  });

  test('read-only values and the id are ignored (conventions §2, §11); a missing companyId is a 400', async () => {
    const given = await t.call('POST', SET, { body: body({ subscriptionState: 'Disabled', id: '2f0c0a6e-1b2c-4d5e-8f90-0123456789ab' }) });
    expect([given.status, given.json.subscriptionState]).toEqual([201, 'Active']);
    expect(given.json.id).not.toBe('2f0c0a6e-1b2c-4d5e-8f90-0123456789ab');
    const { companyId: _omitted, ...rest } = body();
    expectError(await t.call('POST', SET, { body: rest }), 400, 'Application_FieldValidationException', "The field 'companyId'", 'companyId');
  });

  test('PATCH is 405 (a subscription is replaced, not changed)', async () => {
    const id = (await t.call('POST', SET, { body: body() })).json.id;
    expectError(await t.call('PATCH', `${SET}(${id})`, { body: { clientState: 'x' }, headers: { 'If-Match': '*' } }), 405, 'BadRequest_MethodNotAllowed', 'read-only');
  });

  test('private and loopback targets are refused unless the operator allows them', async () => {
    const strict = await startTestService({ webhooks: { allowPrivate: false } });
    try {
      const before = receiver.handshakes.length;
      for (const url of [`${receiver.url}/hook`, 'http://localhost:9/hook', 'http://10.1.2.3/hook', 'http://169.254.169.254/latest/meta-data', 'http://[::1]:9/hook', 'http://[::ffff:127.0.0.1]:9/x']) {
        const r = await strict.call('POST', SET, { body: body({ notificationUrl: url }) });
        expectError(r, 400, 'Application_FieldValidationException', 'private, loopback or link-local', 'notificationUrl');
        expect(r.json.error.message).toContain('--webhooks-allow-private');
      }
      expect(receiver.handshakes).toHaveLength(before);
    } finally {
      await strict.close();
    }
  });
});

describe('who may subscribe, list and delete', () => {
  test('EVENTS in the company is needed to subscribe: 403 without any grant there or without EVENTS; no handshake', async () => {
    const before = receiver.handshakes.length;
    const jsmith = await t.token('JSMITH');
    const created = await t.call('POST', SET, { body: body(), token: jsmith });
    expect([created.status, created.json.userId]).toEqual([201, 'JSMITH']);
    expect(receiver.handshakes).toHaveLength(before + 1);
    expectError(await t.call('POST', SET, { body: body({ companyId: fabrikam }), token: jsmith }), 403, 'Authorization_CompanyAccessDenied', 'You do not have access to this company, or it does not exist');
    expectError(await t.call('POST', SET, { body: body(), token: await t.token('KLEE') }), 403, 'Authorization_PermissionDenied', 'needs permission set EVENTS');
    expectError(await t.call('POST', SET, { body: body({ companyId: '2f0c0a6e-1b2c-4d5e-8f90-0123456789ab' }) }), 403, 'Authorization_CompanyAccessDenied', 'You do not have access to this company, or it does not exist');
    expect(receiver.handshakes).toHaveLength(before + 1);
  });

  test('GET lists only subscriptions of companies where the caller holds EVENTS or SUPER; others are 404 by key', async () => {
    const inFabrikam = (await t.call('POST', SET, { body: body({ companyId: fabrikam, clientState: 'fabrikam' }) })).json.id;
    const all = (await t.call('GET', `${SET}?$select=companyId`)).json.value as { companyId: string }[];
    expect(new Set(all.map((s) => s.companyId))).toEqual(new Set([cronus, fabrikam]));
    const jsmith = await t.token('JSMITH');
    const mine = (await t.call('GET', `${SET}?$select=companyId`, { token: jsmith })).json.value as { companyId: string }[];
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((s) => s.companyId === cronus)).toBe(true);
    expect((await t.call('GET', `${SET}/$count`, { token: jsmith })).text).toBe(String(mine.length));
    expect((await t.call('GET', `${SET}?$filter=companyId eq ${fabrikam}`, { token: jsmith })).json.value).toEqual([]);
    expect((await t.call('GET', `${SET}?$count=true&$filter=clientState eq 'fabrikam' or companyId eq ${fabrikam}&$top=0`, { token: jsmith })).json['@odata.count']).toBe(0);
    expectError(await t.call('GET', `${SET}(${inFabrikam})`, { token: jsmith }), 404, 'Internal_RecordNotFound', 'does not exist');
    expectError(await t.call('DELETE', `${SET}(${inFabrikam})`, { token: jsmith }), 404, 'Internal_RecordNotFound', 'does not exist');
    expectError(await t.call('GET', SET, { token: await t.token('KLEE') }), 403, 'Authorization_PermissionDenied', 'EVENTS');
    expectError(await t.call('GET', SET, { token: await t.token('AUDITOR') }), 403, 'Authorization_PermissionDenied', 'EVENTS');
    expect((await t.call('GET', `${SET}(${inFabrikam})`)).status).toBe(200);
  });

  test('DELETE removes a subscription (204), after which it is 404', async () => {
    const jsmith = await t.token('JSMITH');
    const id = (await t.call('POST', SET, { body: body(), token: jsmith })).json.id;
    expect((await t.call('DELETE', `${SET}(${id})`, { token: jsmith })).status).toBe(204);
    expectError(await t.call('GET', `${SET}(${id})`), 404, 'Internal_RecordNotFound', id);
    expect(Number((await t.query('SELECT count(*) AS n FROM externaleventsubscriptions WHERE id = ?', [id]))[0]?.['n'])).toBe(0);
  });
});
