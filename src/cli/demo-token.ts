/**
 * The demo's ADMIN token for `serve --seed demo`: issued once per database and reused at every start
 * while it stays valid, so restarts do not pile up working SUPER tokens (each start used to issue a new
 * 30-day one). It is kept beside the database file (`<db>.demo-token`, readable by its owner only);
 * `ecn-odata token revoke --user ADMIN --db <db>` ends it, and the next start issues a new one.
 */
import fs from 'node:fs';
import type { TokenStore } from '../auth/token-store.js';

/** How long a demo token is valid. */
const LIFETIME_MS = 30 * 86_400_000;

/** The demo token and whether this start issued it. */
export interface DemoToken {
  readonly token: string;
  readonly issued: boolean;
  readonly expiresAt: string | null;
}

/** The file that keeps the demo token of a database file. */
export function demoTokenFile(dbFile: string): string {
  return `${dbFile}.demo-token`;
}

/** The ADMIN token kept for `dbFile` when it still verifies, else a new one (kept for the next start). */
export async function demoToken(tokens: TokenStore, dbFile: string, user = 'ADMIN'): Promise<DemoToken> {
  const file = dbFile === ':memory:' || /^[a-z][a-z0-9+.-]*:\/\//i.test(dbFile) ? undefined : demoTokenFile(dbFile);
  if (file !== undefined && fs.existsSync(file)) {
    const kept = fs.readFileSync(file, 'utf8').trim();
    const verified = await tokens.verify(kept);
    if (verified.ok && verified.userId === user) return { token: kept, issued: false, expiresAt: verified.expiresAt };
  }
  const issued = await tokens.issue(user, LIFETIME_MS);
  if (file !== undefined) fs.writeFileSync(file, `${issued.token}\n`, { mode: 0o600 });
  return { token: issued.token, issued: true, expiresAt: issued.expiresAt };
}
