/**
 * Credentials as Excel and Power BI send them (conventions §9): Basic with the user id and an API token,
 * through the same checks as Bearer; every 401 names both schemes; with a JWT issuer whose authorize
 * endpoint is configured, the Bearer challenge carries `authorization_uri` (Organizational account).
 */
import { startTestService, type TestService } from '../helpers/test-service.js';
import { startJwksServer, type JwksServer } from '../helpers/jwks-server.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
const get = (url: string, authorization?: string): ReturnType<TestService['call']> =>
  t.call('GET', url, { token: null, headers: authorization === undefined ? {} : { Authorization: authorization } });

test('Basic with the user id (any case) or e-mail as user name and the user’s token as password reads like Bearer', async () => {
  const token = await t.token('KLEE');
  const bearer = await get('/engChangeNotices?$top=2', `Bearer ${token}`);
  expect(bearer.status).toBe(200);
  for (const user of ['KLEE', 'klee', 'kim.lee@cronus.example']) {
    const r = await get('/engChangeNotices?$top=2', basic(user, token));
    expect(r.status).toBe(200);
    expect(r.json).toEqual(bearer.json);
  }
  // Permissions are the token user's: KLEE may read but not write.
  const write = await t.call('PATCH', `/engChangeNotices(${bearer.json.value[0].id})`, { token: null, headers: { Authorization: basic('KLEE', token), 'If-Match': '*' }, body: { drawingNumber: 'X' } });
  expect(write.status).toBe(403);
});

test('Basic refuses another user’s token, a password that is not a token, a revoked token and malformed credentials', async () => {
  const admin = await t.token('ADMIN');
  const revoked = await t.token('KLEE');
  await t.service.context.tokens.revoke({ token: revoked });
  const cases: [string, RegExp][] = [
    [basic('KLEE', admin), /user name does not match the token/],
    [basic('NOBODY', admin), /not known to this service/],
    [basic('', admin), /user name does not match the token/],
    [basic('KLEE', 'hunter2'), /password is an API token/],
    [basic('KLEE', revoked), /revoked token/],
    ['Basic not*base64', /base64 of <user id>:<API token>/],
    [`Basic ${Buffer.from('no-colon').toString('base64')}`, /base64 of <user id>:<API token>/],
  ];
  for (const [authorization, message] of cases) {
    const r = await get('/engChangeNotices', authorization);
    expect({ authorization, status: r.status, code: r.json.error.code }).toEqual({ authorization, status: 401, code: 'Authentication_InvalidCredentials' });
    expect(r.json.error.message).toMatch(message);
    expect(r.text).not.toContain(admin);
    expect(r.text).not.toContain(revoked);
    expect(r.headers['WWW-Authenticate']).toBe('Bearer realm="ecn-odata", error="invalid_token", Basic realm="ecn-odata", charset="UTF-8"');
  }
});

test('a 401 names every accepted scheme; no credentials or a bare "Bearer" get no error code', async () => {
  for (const authorization of [undefined, '', 'Bearer', 'Bearer   ']) {
    const r = await get('/engChangeNotices', authorization);
    expect(r.status).toBe(401);
    expect(r.headers['WWW-Authenticate']).toBe('Bearer realm="ecn-odata", Basic realm="ecn-odata", charset="UTF-8"');
    expect(r.json.error.message).toMatch(/Bearer <token>, or Basic with your user id/);
  }
  const negotiate = await get('/engChangeNotices', 'Negotiate YIIabc');
  expect(negotiate.status).toBe(401);
  expect(negotiate.json.error.message).toMatch(/only the Bearer and Basic schemes are accepted/);
  const bad = await get('/engChangeNotices', 'Bearer ecn_0000000000000000_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx');
  expect(bad.headers['WWW-Authenticate']).toBe('Bearer realm="ecn-odata", error="invalid_token", Basic realm="ecn-odata", charset="UTF-8"');
});

test('valid credentials for a company without a grant, or one that does not exist: 403 without a challenge, alike', async () => {
  // A 401 with a challenge makes Power Query ask again for credentials that are right.
  const token = await t.token('KLEE');
  const denied = await t.call('GET', `/companies(${t.companyIds[1]})/engChangeNotices`, { token });
  const missing = await t.call('GET', '/companies(2f0c0a6e-1b2c-4d5e-8f90-0123456789ab)/engChangeNotices', { token });
  const misspelt = await t.call('GET', '/engChangeNotices?company=CRONUSS', { token });
  for (const r of [denied, missing, misspelt]) {
    expect([r.status, r.json.error.code, r.headers['WWW-Authenticate']]).toEqual([403, 'Authorization_CompanyAccessDenied', undefined]);
    expect(r.json.error.message).toBe(denied.json.error.message);
  }
  // Basic credentials (Excel's) get the same answer.
  const basic = await t.call('GET', `/companies(${t.companyIds[1]})/engChangeNotices`, { token: null, headers: { Authorization: `Basic ${Buffer.from(`KLEE:${token}`).toString('base64')}` } });
  expect([basic.status, basic.headers['WWW-Authenticate']]).toEqual([403, undefined]);
});

describe('with a JWT issuer and its authorize endpoint', () => {
  let jwks: JwksServer;
  let j: TestService;
  const authorize = 'https://login.example.com/tenant-1/oauth2/authorize';
  beforeAll(async () => {
    jwks = await startJwksServer('api://ecn');
    j = await startTestService({
      jwt: { issuer: jwks.issuer, audience: 'api://ecn', jwksUrl: jwks.url, userClaim: 'preferred_username', clockToleranceSeconds: 30, jwksCooldownMs: 0, authorizationUri: authorize },
    });
  });
  afterAll(async () => {
    await j.close();
    await jwks.close();
  });

  test('Power Query’s probe (a bare "Bearer") and a request without credentials get authorization_uri', async () => {
    for (const headers of [{}, { Authorization: 'Bearer' }] as Record<string, string>[]) {
      const r = await j.call('GET', '/engChangeNotices', { token: null, headers });
      expect(r.status).toBe(401);
      expect(r.headers['WWW-Authenticate']).toBe(`Bearer realm="ecn-odata", authorization_uri="${authorize}", Basic realm="ecn-odata", charset="UTF-8"`);
    }
  });

  test('the token the identity provider issued is then accepted', async () => {
    const jwt = await jwks.sign({ preferred_username: 'KLEE' });
    expect((await j.call('GET', '/engChangeNotices?$top=1', { token: jwt })).status).toBe(200);
    const expired = await jwks.sign({ preferred_username: 'KLEE' }, { expiresIn: Math.floor(Date.now() / 1000) - 600 });
    const r = await j.call('GET', '/engChangeNotices?$top=1', { token: expired });
    expect(r.status).toBe(401);
    expect(r.headers['WWW-Authenticate']).toContain(`error="invalid_token", authorization_uri="${authorize}"`);
  });
});
