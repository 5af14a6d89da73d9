/**
 * The authenticator on its own: Bearer and Basic reach the same token checks and the same cache, and a
 * failure is logged with its reason and the request's id and address, never with the credentials.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { Authenticator } from '../../../src/auth/authenticator.js';
import { AuthenticationError } from '../../../src/errors/odata-error.js';
import { startTestService, type TestService } from '../../helpers/test-service.js';

let t: TestService;
let lines: string[];
let auth: Authenticator;
beforeEach(async () => {
  t = await startTestService();
  lines = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const ctx = t.service.context;
  auth = new Authenticator(ctx.users, ctx.tokens, ctx.access, undefined, pino({ level: 'warn' }, sink));
});
afterEach(() => t.close());

const context = { requestId: 'req-1', clientAddress: '192.0.2.7' };
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function failure(authorization: string | undefined): AuthenticationError {
  try {
    auth.authenticate(authorization, context);
  } catch (e) {
    if (e instanceof AuthenticationError) return e;
    throw e;
  }
  throw new Error('authenticated');
}

test('Basic and Bearer give the same principal; the second verifies the token from the cache', async () => {
  const token = await t.token('JSMITH');
  let verifications = 0;
  const verify = t.service.context.tokens.verify.bind(t.service.context.tokens);
  t.service.context.tokens.verify = (...args) => {
    verifications++;
    return verify(...args);
  };
  const viaBearer = auth.authenticate(`Bearer ${token}`, context);
  const viaBasic = auth.authenticate(basic('jsmith', token), context);
  expect(viaBasic).toEqual(viaBearer);
  expect(verifications).toBe(1);
});

test('failures are logged with reason, request id and address, without the credentials', async () => {
  const token = await t.token('ADMIN');
  const attempts = [basic('KLEE', token), basic('KLEE', 'secret-password'), `Bearer ${token}x`, 'Basic %%%'];
  for (const attempt of attempts) expect(failure(attempt).status).toBe(401);
  expect(lines).toHaveLength(attempts.length);
  const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(logged.map((entry) => entry['reason'])).toEqual(['token of another user', 'basic password is not an API token', 'malformed token', 'malformed basic credentials']);
  for (const entry of logged) expect(entry).toMatchObject({ requestId: 'req-1', clientAddress: '192.0.2.7', msg: 'authentication failed' });
  const all = lines.join('\n');
  for (const secret of [token, 'secret-password', Buffer.from(`KLEE:${token}`).toString('base64')]) expect(all).not.toContain(secret);
});

test('the challenge lists Bearer then Basic, each as its own header value', () => {
  expect(failure(undefined).headers?.['WWW-Authenticate']).toEqual(['Bearer realm="ecn-odata"', 'Basic realm="ecn-odata", charset="UTF-8"']);
  expect(failure('Bearer nope').headers?.['WWW-Authenticate']).toEqual(['Bearer realm="ecn-odata", error="invalid_token"', 'Basic realm="ecn-odata", charset="UTF-8"']);
});
