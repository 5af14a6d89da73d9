/**
 * What every request looks up before its own work (the token, the user and its grants, the company)
 * kept in memory between requests. It is valid while the access version is unchanged: triggers on the
 * users, grants, tokens and companies tables (db/auth-tables.ts) count every change, whichever
 * process or connection makes it (the command line revoking a token, a test adding a grant), so a
 * revocation takes effect for every request sent after it committed (reads of one event-loop turn
 * share a snapshot that opened after those requests arrived: db/shared-reads.ts). One indexed read per
 * read snapshot (per request, or per event-loop turn over HTTP) checks the version; the
 * lookups it spares cost four statements and a hash (≈ 18 µs of a 41 µs GET by key, measured).
 * Token expiry is checked on every use, cached or not.
 */
import type { Database } from '../db/database.js';
import type { Principal } from '../core/request.js';

/** A company row's identity. */
export interface CompanyIdentity {
  readonly id: string;
  readonly name: string;
}

/** A verified opaque token: whose it is and until when (ms since epoch; undefined = no expiry). */
export interface VerifiedToken {
  readonly userId: string;
  readonly expiresAtMs: number | undefined;
}

/** Entries per map before it is emptied (bounds memory against many distinct tokens or names). */
const MAX_ENTRIES = 10_000;

const VERSION_SQL = { sql: 'SELECT "version" FROM "_accessVersion" WHERE "id" = 1', params: [] };

function remember<V>(map: Map<string, V>, key: string, value: V): V {
  if (map.size >= MAX_ENTRIES) map.clear();
  map.set(key, value);
  return value;
}

/** The cache; one per service (connection). */
export class AccessCache {
  private version: unknown = undefined;
  /** The read snapshot the version was last read in (-1: none). */
  private checkedIn = -1;
  private readonly tokens = new Map<string, VerifiedToken>();
  private readonly principals = new Map<string, Principal | null>();
  private readonly companies = new Map<string, CompanyIdentity | null>();

  constructor(private readonly db: Database) {}

  /**
   * Empties the cache when the access tables changed since the last check; once per request, before
   * any lookup. Requests that share a read snapshot (db/shared-reads.ts) share one check: nothing can
   * change within a snapshot.
   */
  refresh(): void {
    const snapshot = this.db.readSnapshot;
    if (snapshot !== -1 && snapshot === this.checkedIn) return;
    const version = this.db.get(VERSION_SQL)?.['version'];
    this.checkedIn = this.db.readSnapshot;
    if (version === this.version) return;
    this.version = version;
    this.tokens.clear();
    this.principals.clear();
    this.companies.clear();
  }

  /** A verified token, from the cache or from `verify` (only successes are kept). */
  token(token: string, verify: () => VerifiedToken | undefined): VerifiedToken | undefined {
    const hit = this.tokens.get(token);
    if (hit !== undefined) return hit;
    const fresh = verify();
    return fresh === undefined ? undefined : remember(this.tokens, token, fresh);
  }

  /** The principal of a user key (id or e-mail), null for an unknown user. */
  principal(userKey: string, load: () => Principal | null): Principal | null {
    const hit = this.principals.get(userKey);
    return hit !== undefined ? hit : remember(this.principals, userKey, load());
  }

  /** A company by id or name, null when there is none. */
  company(idOrName: string, load: () => CompanyIdentity | null): CompanyIdentity | null {
    const hit = this.companies.get(idOrName);
    return hit !== undefined ? hit : remember(this.companies, idOrName, load());
  }
}
