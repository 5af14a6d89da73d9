import { openStores, type Stores } from '../../../src/cli/open-stores.js';
import { FIXTURE_METADATA } from '../../fixtures/model.js';

let s: Stores;
beforeEach(async () => {
  s = await openStores(':memory:', FIXTURE_METADATA);
  await s.engine.db.run({ sql: `INSERT INTO "companies" ("id", "name", "_version") VALUES ('00000000-0000-4000-8000-000000000001', 'C1', 1)`, params: [] });
  await s.users.addUser('alice');
});
afterEach(() => s.close());

test('an issued token verifies to its user and only a hash is stored', async () => {
  const { token } = await s.tokens.issue('ALICE');
  expect(token).toMatch(/^ecn_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
  expect(await s.tokens.verify(token)).toEqual({ ok: true, userId: 'ALICE', expiresAt: null });
  const stored = JSON.stringify(await s.engine.db.all({ sql: 'SELECT * FROM "_tokens"', params: [] }));
  expect(stored).not.toContain(token.slice(21));
});

test('wrong secret, unknown id, malformed, expired and revoked tokens are refused', async () => {
  const { token } = await s.tokens.issue('ALICE', 60_000);
  const [, id, secret] = /^ecn_([0-9a-f]{16})_(.+)$/.exec(token) as unknown as [string, string, string];
  expect(await s.tokens.verify(`ecn_${id}_${'A'.repeat(43)}`)).toEqual({ ok: false, reason: 'unknown token' });
  expect(await s.tokens.verify(`ecn_${'0'.repeat(16)}_${secret}`)).toEqual({ ok: false, reason: 'unknown token' });
  expect(await s.tokens.verify('ecn_nope')).toEqual({ ok: false, reason: 'malformed token' });
  expect(await s.tokens.verify(token, new Date(Date.now() + 120_000))).toEqual({ ok: false, reason: 'expired token' });
  expect(await s.tokens.revoke({ token })).toBe(1);
  expect(await s.tokens.verify(token)).toEqual({ ok: false, reason: 'revoked token' });
});

test('grants are per company and per set; unknown sets are refused', async () => {
  await s.users.grant('alice', 'C1', ['ECN-READ', 'TASK-WRITE']);
  const p = await s.users.principal((await s.users.user('alice'))!);
  expect([...(p.grants?.get('00000000-0000-4000-8000-000000000001') ?? [])].sort()).toEqual(['ECN-READ', 'TASK-WRITE']);
  await expect(s.users.grant('alice', 'C1', ['ECN-READD'])).rejects.toThrow(/Unknown permission set 'ECN-READD'/);
  await expect(s.users.grant('bob', 'C1', ['ECN-READ'])).rejects.toThrow(/no user 'bob'/);
  await expect(s.users.grant('alice', 'C9', ['ECN-READ'])).rejects.toThrow(/no company 'C9'/);
});

test('a user is added once and updated by a second add; a granted set is kept once', async () => {
  await s.users.addUser('alice', 'alice@example.com', 'C1');
  await s.users.addUser('ALICE');
  expect(await s.users.user('alice')).toEqual({ userId: 'ALICE', email: 'alice@example.com', defaultCompanyId: '00000000-0000-4000-8000-000000000001' });
  await s.users.grant('alice', 'C1', ['ECN-READ']);
  await s.users.grant('alice', 'C1', ['ECN-READ']);
  expect(await s.users.revoke('alice', 'C1', [])).toBe(1);
});
