/**
 * JWT bearer tokens from an external identity provider, verified with jose against the issuer's JWKS
 * (signature RS256/ES256, issuer, audience, expiry with clock skew). A key id the cached key set does not
 * know makes jose fetch the JWKS again, so key rotation is picked up without a restart.
 */
import { createRemoteJWKSet, jwtVerify, errors, type JWTPayload } from 'jose';

/** JWT settings of the service. */
export interface JwtSettings {
  readonly issuer: string;
  readonly audience: string;
  readonly jwksUrl: string;
  /** The claim naming the user (matched against user ids, then e-mails). */
  readonly userClaim: string;
  readonly clockToleranceSeconds: number;
  /** Minimum time between two JWKS fetches triggered by unknown key ids (ms). */
  readonly jwksCooldownMs: number;
  /**
   * The issuer's OAuth 2.0 authorize endpoint, named as `authorization_uri` in 401 challenges so that
   * Excel's and Power BI's "Organizational account" credential can find the identity provider.
   */
  readonly authorizationUri?: string;
}

/** Verifies JWTs; `verify` resolves to the user claim's value or a reason. */
export class JwtVerifier {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;

  constructor(private readonly settings: JwtSettings) {
    this.jwks = createRemoteJWKSet(new URL(settings.jwksUrl), { cooldownDuration: settings.jwksCooldownMs, timeoutDuration: 5000 });
  }

  /** true when the text looks like a JWS compact token (three base64url parts). */
  static looksLikeJwt(token: string): boolean {
    return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
  }

  /** The user claim of a valid token, or why it is not valid. */
  async verify(token: string): Promise<{ ok: true; user: string } | { ok: false; reason: string }> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.jwks, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        clockTolerance: this.settings.clockToleranceSeconds,
        algorithms: ['RS256', 'ES256'],
        requiredClaims: ['exp'],
      }));
    } catch (e) {
      if (e instanceof errors.JWTExpired) return { ok: false, reason: 'expired JWT' };
      if (e instanceof errors.JWTClaimValidationFailed) return { ok: false, reason: `JWT claim ${e.claim} rejected` };
      if (e instanceof errors.JWKSNoMatchingKey) return { ok: false, reason: 'no matching signing key' };
      return { ok: false, reason: `invalid JWT (${(e as Error).name})` };
    }
    const user = payload[this.settings.userClaim];
    if (typeof user !== 'string' || user === '') return { ok: false, reason: `JWT has no ${this.settings.userClaim} claim` };
    return { ok: true, user };
  }
}
