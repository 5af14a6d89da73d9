/**
 * Opaque API tokens issued from the command line: `ecn_<id>_<secret>`. Only a SHA-256 hash of the
 * secret is stored (the secret has 256 random bits, so no salt or slow hash is needed); the presented
 * secret is compared in constant time. Tokens may expire and may be revoked.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Engine } from '../db/engine.js';
import { sqlText, type SqlTag } from '../sql/sql-text.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import { UserStoreError } from './user-store.js';

const TOKEN = /^ecn_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

const hash = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();

/** Parses a lifetime such as `30d`, `12h`, `45m`, `3600s` into milliseconds. */
export function parseLifetime(text: string): number {
  const m = /^(\d{1,6})([smhd])$/.exec(text.trim());
  if (m === null) throw new UserStoreError(`'${text}' is not a lifetime; write e.g. 30d, 12h, 45m or 3600s.`);
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}

/** What a token check found. */
export type TokenCheck = { ok: true; userId: string; expiresAt: string | null } | { ok: false; reason: string };

interface TokenRow {
  userId: string;
  secretHash: Buffer;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** Issues, verifies and revokes opaque tokens. */
export class TokenStore {
  private readonly sql: SqlTag;

  constructor(private readonly engine: Pick<Engine, 'db' | 'dialect'>) {
    this.sql = sqlText(engine.dialect);
  }

  /** Issues a token for an existing user; returns the token text (shown once, never stored). */
  async issue(userId: string, lifetimeMs?: number, now = new Date()): Promise<{ token: string; tokenId: string; expiresAt: string | null }> {
    const tokenId = randomBytes(8).toString('hex');
    const secret = randomBytes(32).toString('base64url');
    const expiresAt = lifetimeMs === undefined ? null : new Date(now.getTime() + lifetimeMs).toISOString();
    await this.engine.db.run(
      this.sql`INSERT INTO "_tokens" ("tokenId", "userId", "secretHash", "createdAt", "expiresAt") VALUES (${tokenId}, ${userId}, ${hash(secret)}, ${now.toISOString()}, ${expiresAt})`,
    );
    return { token: `ecn_${tokenId}_${secret}`, tokenId, expiresAt };
  }

  /** The user id of a valid token, or why it is not valid (at once on SQLite: every request verifies a token). */
  verify(token: string, now = new Date()): MaybePromise<TokenCheck> {
    const m = TOKEN.exec(token);
    if (m === null) return { ok: false, reason: 'malformed token' };
    const found = this.engine.db.get(this.sql`SELECT "userId", "secretHash", "expiresAt", "revokedAt" FROM "_tokens" WHERE "tokenId" = ${m[1] ?? ''}`);
    return andThen(found, (r) => {
      const row = r as TokenRow | undefined;
      // Compare even when the id is unknown, so timing does not tell which part was wrong.
      const presented = hash(m[2] as string);
      const stored = row?.secretHash ?? Buffer.alloc(presented.length);
      const equal = timingSafeEqual(presented, stored.length === presented.length ? stored : Buffer.alloc(presented.length));
      if (row === undefined || !equal) return { ok: false, reason: 'unknown token' };
      if (row.revokedAt !== null) return { ok: false, reason: 'revoked token' };
      if (row.expiresAt !== null && row.expiresAt <= now.toISOString()) return { ok: false, reason: 'expired token' };
      return { ok: true, userId: row.userId, expiresAt: row.expiresAt };
    });
  }

  /** Revokes one token (by its text or id) or every token of a user; returns how many. */
  async revoke(what: { token?: string; userId?: string }, now = new Date()): Promise<number> {
    const at = now.toISOString();
    if (what.token !== undefined) {
      const id = TOKEN.exec(what.token)?.[1] ?? (/^[0-9a-f]{16}$/.test(what.token) ? what.token : undefined);
      if (id === undefined) throw new UserStoreError('That is not a token or token id.');
      return this.engine.db.run(this.sql`UPDATE "_tokens" SET "revokedAt" = ${at} WHERE "tokenId" = ${id} AND "revokedAt" IS NULL`);
    }
    if (what.userId !== undefined) {
      return this.engine.db.run(this.sql`UPDATE "_tokens" SET "revokedAt" = ${at} WHERE "userId" = ${what.userId.trim().toUpperCase()} AND "revokedAt" IS NULL`);
    }
    throw new UserStoreError('Name a --token or a --user to revoke.');
  }
}
