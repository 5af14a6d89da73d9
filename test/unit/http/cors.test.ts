/**
 * CORS (conventions §9): off by default; with `corsOrigins`, a preflight from an allowed origin is
 * answered without a token, and every response to that origin (errors included) lets the page read it.
 */
import request from 'supertest';
import type { Express } from 'express';
import { createExpressApp } from '../../../src/http/express-app.js';
import { isOrigin } from '../../../src/http/cors.js';
import { startTestService, type TestService } from '../../helpers/test-service.js';

const APP = 'https://app.example.com';
const preflight = (app: Express, origin: string): request.Test =>
  request(app).options('/api/v2.0/engChangeNotices').set('Origin', origin).set('Access-Control-Request-Method', 'PATCH').set('Access-Control-Request-Headers', 'authorization, if-match, content-type');

test('origins are scheme, host and port only', () => {
  expect(['https://app.example.com', 'http://localhost:3000', 'http://[::1]:8080'].filter(isOrigin)).toHaveLength(3);
  expect(['https://app.example.com/', 'https://app.example.com/path', 'app.example.com', 'ftp://x.example', '*', 'HTTPS://APP.EXAMPLE.COM'].filter(isOrigin)).toEqual([]);
});

describe('off by default', () => {
  let t: TestService;
  let app: Express;
  beforeAll(async () => {
    t = await startTestService();
    app = createExpressApp(t.service);
  });
  afterAll(() => t.close());

  test('no CORS header on any response, and a preflight is refused with a message naming the option', async () => {
    const r = await request(app).get('/api/v2.0/engChangeNotices?$top=1').set('Origin', APP).set('Authorization', `Bearer ${await t.token('ADMIN')}`).expect(200);
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
    expect(r.headers['vary']).toBeUndefined();
    const p = await preflight(app, APP).expect(403);
    expect(p.headers['access-control-allow-origin']).toBeUndefined();
    expect(p.body.error.message).toMatch(/no origin is allowed.*--cors-origin/);
  });
});

describe('with allowed origins', () => {
  let t: TestService;
  let app: Express;
  beforeAll(async () => {
    t = await startTestService({ corsOrigins: [APP, 'http://localhost:3000'] });
    app = createExpressApp(t.service);
  });
  afterAll(() => t.close());

  test('a preflight from an allowed origin is answered without a token', async () => {
    const r = await preflight(app, APP).expect(204);
    expect(r.headers['access-control-allow-origin']).toBe(APP);
    expect(r.headers['access-control-allow-methods']).toBe('GET, HEAD, POST, PATCH, PUT, DELETE');
    expect(r.headers['access-control-allow-headers']).toMatch(/Authorization, Content-Type, Accept, If-Match/);
    // Business Central's read scale-out header (a replica may answer the GET).
    expect(r.headers['access-control-allow-headers']).toMatch(/Data-Access-Intent/);
    expect(r.headers['access-control-max-age']).toBe('600');
    expect(r.headers['vary']).toBe('Origin');
    expect(r.headers['access-control-allow-credentials']).toBeUndefined();
  });

  test('a preflight from another origin is refused, and names the allowed ones', async () => {
    const r = await preflight(app, 'https://evil.example').expect(403);
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
    expect(r.body.error.message).toContain('the allowed origins are https://app.example.com, http://localhost:3000');
  });

  test('responses to an allowed origin expose ETag, Location and the OData headers; errors too', async () => {
    const auth = `Bearer ${await t.token('ADMIN')}`;
    const ecn = (await request(app).get('/api/v2.0/engChangeNotices?$top=1').set('Authorization', auth)).body.value[0];
    const one = await request(app).get(`/api/v2.0/engChangeNotices(${ecn.id})`).set('Origin', APP).set('Authorization', auth).expect(200);
    expect(one.headers['access-control-allow-origin']).toBe(APP);
    expect(one.headers['access-control-expose-headers']).toBe('ETag, Location, OData-EntityId, OData-Version, Preference-Applied, Retry-After, X-Request-Id');
    expect(one.headers['vary']).toBe('Origin');
    const denied = await request(app).get('/api/v2.0/engChangeNotices').set('Origin', APP).expect(401);
    expect(denied.headers['access-control-allow-origin']).toBe(APP);
    const other = await request(app).get('/api/v2.0/engChangeNotices').set('Origin', 'https://evil.example').set('Authorization', auth).expect(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers['vary']).toMatch(/^Origin/);
  });

  test('an OPTIONS request that is not a preflight is routed as before', async () => {
    const r = await request(app).options('/api/v2.0/engChangeNotices').set('Authorization', `Bearer ${await t.token('ADMIN')}`);
    expect(r.status).toBe(405);
  });
});

describe('Basic credentials a browser remembered', () => {
  let t: TestService;
  let app: Express;
  let basic: string;
  let action: string;
  beforeAll(async () => {
    t = await startTestService({ corsOrigins: [APP] });
    app = createExpressApp(t.service);
    basic = `Basic ${Buffer.from(`ADMIN:${await t.token('ADMIN')}`).toString('base64')}`;
    const approved = (await t.call('GET', "/engChangeNotices?$filter=status eq 'Approved'&$top=1")).json.value[0];
    action = `/api/v2.0/engChangeNotices(${approved.id})/Microsoft.NAV.createEngChangeOrder`;
  });
  afterAll(() => t.close());
  const orders = async (): Promise<number> => Number((await t.call('GET', '/engChangeOrders/$count')).text);

  test('a change sent with them from another site’s page is refused, and changes nothing', async () => {
    const before = await orders();
    for (const headers of [{ 'Sec-Fetch-Site': 'cross-site', Origin: 'https://evil.example' }, { Origin: 'https://evil.example' }, { 'Sec-Fetch-Site': 'cross-site' }, { 'Sec-Fetch-Site': 'same-site', Origin: 'null' }]) {
      const r = await request(app).post(action).set('Authorization', basic).set(headers).expect(403);
      expect(r.body.error.code).toBe('Authorization_OriginNotAllowed');
      expect(r.body.error.message).toMatch(/Send the token as Authorization: Bearer/);
    }
    expect(await orders()).toBe(before);
  });

  test('the same change from the service’s own page, an allowed origin, Excel (no browser headers) or with Bearer goes through', async () => {
    const before = await orders();
    const host = (r: request.Test): request.Test => r.set('Host', 'ecn.example:8080');
    await host(request(app).post(action).set('Authorization', basic).set({ 'Sec-Fetch-Site': 'same-origin', Origin: 'http://ecn.example:8080' })).expect(200);
    await host(request(app).post(action).set('Authorization', basic).set({ Origin: 'http://ecn.example:8080' })).expect(200);
    await request(app).post(action).set('Authorization', basic).set({ 'Sec-Fetch-Site': 'cross-site', Origin: APP }).expect(200);
    await request(app).post(action).set('Authorization', basic).expect(200);
    await request(app).post(action).set('Authorization', `Bearer ${await t.token('ADMIN')}`).set({ 'Sec-Fetch-Site': 'cross-site', Origin: 'https://evil.example' }).expect(200);
    expect(await orders()).toBe(before + 5);
  });

  test('reads with them are not affected (another site cannot read the answer)', async () => {
    await request(app).get('/api/v2.0/engChangeNotices?$top=1').set('Authorization', basic).set({ 'Sec-Fetch-Site': 'cross-site', Origin: 'https://evil.example' }).expect(200);
  });
});
