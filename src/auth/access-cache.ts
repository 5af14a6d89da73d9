/**
 * What every request looks up before its own work (the token, the user and its grants, the company)
 * kept in memory between requests. It is valid while the access version is unchanged: triggers on the
 * users, grants, tokens and companies tables (db/sqlite/sqlite-framework-tables.ts) count every change, whichever
 * process or connection makes it (the command line revoking a token, a test adding a grant), so a
 * revocation takes effect for every request sent after it committed (reads of one event-loop turn
 * share a snapshot that opened after those requests arrived: db/sqlite/sqlite-shared-reads.ts). One indexed read per
 * cache epoch (SQLite: per read snapshot, so per request or per event-loop turn over HTTP; PostgreSQL:
 * per short period, so another instance's revocation counts within it, and after a write of this
 * instance that changed the version) checks the version; the lookups it spares cost four statements
 * and a hash, nearly half of a GET by key.
 * Token expiry is checked on every use, cached or not.
 */
import type { Engine } from '../db/engine.js';
import type { Principal } from './principal.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import { ACCESS_VERSION_SQL } from '../db/framework-tables.js';

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

const VERSION_SQL = { sql: ACCESS_VERSION_SQL, params: [] };

function remember<V>(map: Map<string, V>, key: string, value: V): V {
  if (map.size >= MAX_ENTRIES) map.clear();
  map.set(key, value);
  return value;
}

/** The cache; one per service (connection). */
export class AccessCache {
  private version: unknown = undefined;
  /** The cache epoch the version was last read in (-1: none). */
  private checkedIn = -1;
  /** The read of the version under way (PostgreSQL), and the epoch it began in. */
  private pending: { readonly epoch: number; readonly read: Promise<void> } | undefined;
  private readonly tokens = new Map<string, VerifiedToken>();
  private readonly principals = new Map<string, Principal | null>();
  private readonly companies = new Map<string, CompanyIdentity | null>();

  constructor(private readonly engine: Pick<Engine, 'db' | 'cacheEpoch'>) {}

  /**
   * Empties the cache when the access tables changed since the last check; once per request, before
   * any lookup. Requests that share a read snapshot (db/sqlite/sqlite-shared-reads.ts) share one check: nothing can
   * change within a snapshot; those of one epoch that arrive while its read is under way wait for it.
   * A read answered later (PostgreSQL) counts for the epoch it began in: one that moved meanwhile (a
   * write that changed the version committed) is checked again.
   */
  refresh(): MaybePromise<void> {
    const epoch = this.engine.cacheEpoch;
    if (epoch !== -1 && epoch === this.checkedIn) return;
    if (epoch !== -1 && this.pending?.epoch === epoch) return this.pending.read;
    let later = false;
    const checked = andThen(this.engine.db.get(VERSION_SQL), (row) => {
      if (!later) {
        // Answered at once (SQLite): in the read snapshot the read itself may have opened.
        this.checkedIn = this.engine.cacheEpoch;
      } else {
        if (this.pending?.epoch === epoch) this.pending = undefined;
        // A read of an older epoch that answered after a newer one's tells nothing new.
        if (epoch < this.checkedIn) return;
        this.checkedIn = epoch;
      }
      const version = row?.['version'];
      if (version === this.version) return;
      this.version = version;
      this.tokens.clear();
      this.principals.clear();
      this.companies.clear();
    });
    later = true;
    if (checked instanceof Promise) {
      this.pending = { epoch, read: checked };
      // A failed read is the caller's error; the next request reads again.
      checked.catch(() => {
        if (this.pending?.epoch === epoch) this.pending = undefined;
      });
    }
    return checked;
  }

  /** A verified token, from the cache or from `verify` (only successes are kept). */
  token(token: string, verify: () => MaybePromise<VerifiedToken | undefined>): MaybePromise<VerifiedToken | undefined> {
    const hit = this.tokens.get(token);
    if (hit !== undefined) return hit;
    return andThen(verify(), (fresh) => (fresh === undefined ? undefined : remember(this.tokens, token, fresh)));
  }

  /** The principal of a user key (id or e-mail), null for an unknown user. */
  principal(userKey: string, load: () => MaybePromise<Principal | null>): MaybePromise<Principal | null> {
    const hit = this.principals.get(userKey);
    return hit !== undefined ? hit : andThen(load(), (found) => remember(this.principals, userKey, found));
  }

  /** A company by id or name, null when there is none. */
  company(idOrName: string, load: () => MaybePromise<CompanyIdentity | null>): MaybePromise<CompanyIdentity | null> {
    const hit = this.companies.get(idOrName);
    return hit !== undefined ? hit : andThen(load(), (found) => remember(this.companies, idOrName, found));
  }
}
