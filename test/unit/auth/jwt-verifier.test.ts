import { JwtVerifier } from '../../../src/auth/jwt-verifier.js';
import { startJwksServer, type JwksServer } from '../../helpers/jwks-server.js';

let jwks: JwksServer;
let verifier: JwtVerifier;
beforeAll(async () => {
  jwks = await startJwksServer('api://ecn');
  verifier = new JwtVerifier({ issuer: jwks.issuer, audience: 'api://ecn', jwksUrl: jwks.url, userClaim: 'preferred_username', clockToleranceSeconds: 30, jwksCooldownMs: 0 });
});
afterAll(() => jwks.close());

test.each(['RS256', 'ES256'] as const)('a valid %s token maps to its user claim', async (alg) => {
  const token = await jwks.sign({ preferred_username: 'ALICE' }, { alg });
  await expect(verifier.verify(token)).resolves.toEqual({ ok: true, user: 'ALICE' });
});

test('expired, wrong audience, wrong issuer and missing claim are refused', async () => {
  const now = Math.floor(Date.now() / 1000);
  await expect(verifier.verify(await jwks.sign({ preferred_username: 'A' }, { expiresIn: now - 120 }))).resolves.toEqual({ ok: false, reason: 'expired JWT' });
  await expect(verifier.verify(await jwks.sign({ preferred_username: 'A' }, { audience: 'api://other' }))).resolves.toMatchObject({ ok: false, reason: 'JWT claim aud rejected' });
  await expect(verifier.verify(await jwks.sign({ preferred_username: 'A' }, { issuer: 'http://evil' }))).resolves.toMatchObject({ ok: false, reason: 'JWT claim iss rejected' });
  await expect(verifier.verify(await jwks.sign({ sub: 'x' }))).resolves.toEqual({ ok: false, reason: 'JWT has no preferred_username claim' });
});

test('within the clock skew an expired token still passes', async () => {
  const now = Math.floor(Date.now() / 1000);
  await expect(verifier.verify(await jwks.sign({ preferred_username: 'A' }, { expiresIn: now - 10 }))).resolves.toEqual({ ok: true, user: 'A' });
});

test('a rotated key (new kid) is picked up without a restart', async () => {
  await verifier.verify(await jwks.sign({ preferred_username: 'A' }));
  const before = jwks.fetches();
  await jwks.rotate('RS256', true);
  await expect(verifier.verify(await jwks.sign({ preferred_username: 'B' }))).resolves.toEqual({ ok: true, user: 'B' });
  expect(jwks.fetches()).toBeGreaterThan(before);
});

test('a token signed by an unknown key is refused', async () => {
  const other = await startJwksServer('api://ecn');
  try {
    const forged = await other.sign({ preferred_username: 'A' }, { issuer: jwks.issuer });
    const r = await verifier.verify(forged);
    expect(r.ok).toBe(false);
  } finally {
    await other.close();
  }
});
