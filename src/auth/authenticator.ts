/**
 * Turns a request's credentials into a principal (conventions §7, §9): `Authorization: Bearer <token>`
 * with an opaque token from the token store or a JWT of the configured issuer, or `Authorization:
 * Basic` with a user id (or e-mail) as user name and an opaque token of that user as password (Excel's
 * and Power BI's built-in "Basic" credential). Both schemes go through the same token checks and
 * caches. Every failure is a 401 whose `WWW-Authenticate` names every accepted scheme
 * (errors/challenges.ts) and whose message never repeats the credentials; failures are logged without them.
 */
import type { Logger } from 'pino';
import { AuthenticationError } from '../errors/odata-error.js';
import type { Principal } from './principal.js';
import { JwtVerifier, type JwtSettings } from './jwt-verifier.js';
import type { TokenStore } from './token-store.js';
import type { UserStore } from './user-store.js';
import type { AccessCache, VerifiedToken } from './access-cache.js';
import { wwwAuthenticate } from '../errors/challenges.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';

/** `<scheme> [<credentials>]`: the credentials may be missing (Power Query probes with a bare `Bearer`). */
const CREDENTIALS = /^\s*(Bearer|Basic)(?:\s+(\S+))?\s*$/i;
/** base64 of RFC 7617 §2 (standard alphabet, padded or not). */
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Logs a failure and throws its 401; `invalid` says credentials were sent and rejected. */
type Fail = (reason: string, invalid: boolean, message: string) => never;

/** How to send credentials, for the messages of 401s. */
const HOW = 'send Authorization: Bearer <token>, or Basic with your user id as user name and an API token as password';

/** Authenticates requests. */
export class Authenticator {
  private readonly jwt: JwtVerifier | undefined;
  /** The challenges of a 401 without credentials, and of one whose credentials were rejected. */
  private readonly challenge: readonly string[];
  private readonly rejected: readonly string[];

  constructor(
    private readonly users: UserStore,
    private readonly tokens: TokenStore,
    private readonly cache: AccessCache,
    jwt: JwtSettings | undefined,
    private readonly log: Logger,
  ) {
    this.jwt = jwt === undefined ? undefined : new JwtVerifier(jwt);
    const authorizationUri = jwt?.authorizationUri;
    this.challenge = wwwAuthenticate({ authorizationUri });
    this.rejected = wwwAuthenticate({ authorizationUri, invalidToken: true });
  }

  /**
   * The principal of a request, or AuthenticationError. Synchronous for opaque tokens on SQLite (a
   * promise for JWTs, whose keys may have to be fetched, and for lookups on PostgreSQL): every promise
   * and await is a microtask hop per request.
   */
  authenticate(authorization: string | undefined, context: { requestId: string; clientAddress?: string }): MaybePromise<Principal> {
    const fail: Fail = (reason, invalid, message) => {
      this.log.warn({ requestId: context.requestId, clientAddress: context.clientAddress, reason }, 'authentication failed');
      throw new AuthenticationError(message, invalid ? this.rejected : this.challenge);
    };
    const m = authorization === undefined ? null : CREDENTIALS.exec(authorization);
    if (m === null) {
      if (authorization === undefined || authorization.trim() === '') return fail('no credentials', false, `The server has rejected the client credentials: ${HOW}.`);
      return fail('unsupported scheme', false, `The server has rejected the client credentials: only the Bearer and Basic schemes are accepted; ${HOW}.`);
    }
    const credentials = m[2];
    if (credentials === undefined) return fail('no credentials', false, `The server has rejected the client credentials: ${HOW}.`);
    return andThen(this.cache.refresh(), () => {
      if ((m[1] as string).toLowerCase() === 'basic') return this.basic(credentials, fail);
      if (credentials.startsWith('ecn_')) return andThen(this.opaqueToken(credentials, fail), (verified) => this.principalOf(verified.userId, fail));
      const jwt = this.jwt;
      if (jwt !== undefined && JwtVerifier.looksLikeJwt(credentials)) {
        return jwt.verify(credentials).then((r) => {
          if (!r.ok) return fail(r.reason, true, `The server has rejected the client credentials (${r.reason}).`);
          return this.principalOf(r.user, fail);
        });
      }
      return fail('unrecognised token', true, 'The server has rejected the client credentials (unrecognised token).');
    });
  }

  /**
   * Basic credentials (RFC 7617): `<user id or e-mail>:<API token>`. The token must be valid and the
   * user's own, so a token cannot be used under another name.
   */
  private basic(encoded: string, fail: Fail): MaybePromise<Principal> {
    const decoded = BASE64.test(encoded) ? Buffer.from(encoded, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    if (colon < 0) return fail('malformed basic credentials', true, 'The server has rejected the client credentials: Basic credentials are base64 of <user id>:<API token>.');
    const token = decoded.slice(colon + 1).trim();
    if (!token.startsWith('ecn_')) {
      return fail('basic password is not an API token', true, 'The server has rejected the client credentials: with Basic, the password is an API token from `ecn-odata token` and the user name is your user id.');
    }
    const userName = decoded.slice(0, colon).trim();
    const mismatch = (): never => fail('token of another user', true, 'The server has rejected the client credentials (the user name does not match the token).');
    return andThen(this.opaqueToken(token, fail), (verified) => {
      if (userName === '') return mismatch();
      return andThen(this.principalOf(userName, fail), (principal) => (principal.userId === verified.userId ? principal : mismatch()));
    });
  }

  /** An opaque token's user and expiry, from the cache or the token store; `fail` when it is not valid. */
  private opaqueToken(token: string, fail: Fail): MaybePromise<VerifiedToken> {
    let failure = 'unknown token';
    const found = this.cache.token(token, () =>
      andThen(this.tokens.verify(token), (r): VerifiedToken | undefined => {
        if (r.ok) return { userId: r.userId, expiresAtMs: r.expiresAt === null ? undefined : Date.parse(r.expiresAt) };
        failure = r.reason;
        return undefined;
      }),
    );
    return andThen(found, (verified) => {
      if (verified === undefined) return fail(failure, true, `The server has rejected the client credentials (${failure}).`);
      // A cached token expires like a stored one.
      if (verified.expiresAtMs !== undefined && verified.expiresAtMs <= Date.now()) return fail('expired token', true, 'The server has rejected the client credentials (expired token).');
      return verified;
    });
  }

  /** The principal of an authenticated user key (id or email), or `fail` when no such user exists. */
  private principalOf(userKey: string, fail: Fail): MaybePromise<Principal> {
    const found = this.cache.principal(userKey, () => andThen(this.users.findByIdOrEmail(userKey), (user) => (user === undefined ? null : this.users.principal(user))));
    return andThen(found, (principal) => principal ?? fail('unknown user', true, 'The server has rejected the client credentials (the user is not known to this service).'));
  }
}
