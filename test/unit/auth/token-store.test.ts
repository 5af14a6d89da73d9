import { openStores, type Stores } from '../../../src/cli/open-stores.js';
import { FIXTURE_METADATA } from '../../fixtures/model.js';

let s: Stores;
beforeEach(() => {
  s = openStores(':memory:', FIXTURE_METADATA);
  s.db.raw.prepare(`INSERT INTO "companies" ("id", "name", "_version") VALUES ('00000000-0000-4000-8000-000000000001', 'C1', 1)`).run();
  s.users.addUser('alice');
});
afterEach(() => s.close());

test('an issued token verifies to its user and only a hash is stored', () => {
  const { token } = s.tokens.issue('ALICE');
  expect(token).toMatch(/^ecn_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
  expect(s.tokens.verify(token)).toEqual({ ok: true, userId: 'ALICE', expiresAt: null });
  const stored = JSON.stringify(s.db.raw.prepare('SELECT * FROM "_tokens"').all());
  expect(stored).not.toContain(token.slice(21));
});

test('wrong secret, unknown id, malformed, expired and revoked tokens are refused', () => {
  const { token } = s.tokens.issue('ALICE', 60_000);
  const [, id, secret] = /^ecn_([0-9a-f]{16})_(.+)$/.exec(token) as unknown as [string, string, string];
  expect(s.tokens.verify(`ecn_${id}_${'A'.repeat(43)}`)).toEqual({ ok: false, reason: 'unknown token' });
  expect(s.tokens.verify(`ecn_${'0'.repeat(16)}_${secret}`)).toEqual({ ok: false, reason: 'unknown token' });
  expect(s.tokens.verify('ecn_nope')).toEqual({ ok: false, reason: 'malformed token' });
  expect(s.tokens.verify(token, new Date(Date.now() + 120_000))).toEqual({ ok: false, reason: 'expired token' });
  expect(s.tokens.revoke({ token })).toBe(1);
  expect(s.tokens.verify(token)).toEqual({ ok: false, reason: 'revoked token' });
});

test('grants are per company and per set; unknown sets are refused', () => {
  s.users.grant('alice', 'C1', ['ECN-READ', 'TASK-WRITE']);
  const p = s.users.principal(s.users.user('alice')!);
  expect([...(p.grants?.get('00000000-0000-4000-8000-000000000001') ?? [])].sort()).toEqual(['ECN-READ', 'TASK-WRITE']);
  expect(() => s.users.grant('alice', 'C1', ['ECN-READD'])).toThrow(/Unknown permission set 'ECN-READD'/);
  expect(() => s.users.grant('bob', 'C1', ['ECN-READ'])).toThrow(/no user 'bob'/);
  expect(() => s.users.grant('alice', 'C9', ['ECN-READ'])).toThrow(/no company 'C9'/);
});
