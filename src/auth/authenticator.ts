/**
 * Turns a request's `Authorization: Bearer <token>` into a principal (conventions §7): opaque tokens
 * from the token store, JWTs through the configured issuer. Every failure is a 401 with
 * `WWW-Authenticate: Bearer` and a message that never repeats the token; failures are logged without it.
 */
import type { Logger } from 'pino';
import { AuthenticationError } from '../errors/odata-error.js';
import type { Principal } from '../core/request.js';
import { JwtVerifier, type JwtSettings } from './jwt-verifier.js';
import type { TokenStore } from './token-store.js';
import type { UserStore } from './user-store.js';
import type { AccessCache, VerifiedToken } from './access-cache.js';

/** Authenticates requests. */
export class Authenticator {
  private readonly jwt: JwtVerifier | undefined;

  constructor(
    private readonly users: UserStore,
    private readonly tokens: TokenStore,
    private readonly cache: AccessCache,
    jwt: JwtSettings | undefined,
    private readonly log: Logger,
  ) {
    this.jwt = jwt === undefined ? undefined : new JwtVerifier(jwt);
  }

  /**
   * The principal of a request, or AuthenticationError. Synchronous for opaque tokens (a promise only
   * for JWTs, whose keys may have to be fetched): every promise and await is a microtask hop per request.
   */
  authenticate(authorization: string | undefined, context: { requestId: string; clientAddress?: string }): Principal | Promise<Principal> {
    const fail = (reason: string, invalidToken: boolean, message: string): never => {
      this.log.warn({ requestId: context.requestId, clientAddress: context.clientAddress, reason }, 'authentication failed');
      throw new AuthenticationError(message, invalidToken);
    };
    if (authorization === undefined || authorization.trim() === '') {
      return fail('no credentials', false, 'The server has rejected the client credentials: send an Authorization: Bearer <token> header.');
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (m === null) return fail('not a bearer token', false, 'The server has rejected the client credentials: only the Bearer scheme is accepted.');
    const token = m[1] as string;
    this.cache.refresh();
    if (token.startsWith('ecn_')) {
      let failure = 'unknown token';
      const verified = this.cache.token(token, (): VerifiedToken | undefined => {
        const r = this.tokens.verify(token);
        if (r.ok) return { userId: r.userId, expiresAtMs: r.expiresAt === null ? undefined : Date.parse(r.expiresAt) };
        failure = r.reason;
        return undefined;
      });
      if (verified === undefined) return fail(failure, true, `The server has rejected the client credentials (${failure}).`);
      // A cached token expires like a stored one.
      if (verified.expiresAtMs !== undefined && verified.expiresAtMs <= Date.now()) return fail('expired token', true, 'The server has rejected the client credentials (expired token).');
      return this.principalOf(verified.userId, fail);
    }
    const jwt = this.jwt;
    if (jwt !== undefined && JwtVerifier.looksLikeJwt(token)) {
      return jwt.verify(token).then((r) => {
        if (!r.ok) return fail(r.reason, true, `The server has rejected the client credentials (${r.reason}).`);
        return this.principalOf(r.user, fail);
      });
    }
    return fail('unrecognised token', true, 'The server has rejected the client credentials (unrecognised token).');
  }

  /** The principal of an authenticated user key (id or email), or `fail` when no such user exists. */
  private principalOf(userKey: string, fail: (reason: string, invalidToken: boolean, message: string) => never): Principal {
    const principal = this.cache.principal(userKey, () => {
      const user = this.users.findByIdOrEmail(userKey);
      return user === undefined ? null : this.users.principal(user);
    });
    if (principal === null) return fail('unknown user', true, 'The server has rejected the client credentials (the user is not known to this service).');
    return principal;
  }
}
