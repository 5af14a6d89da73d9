/**
 * The `WWW-Authenticate` challenges of a 401: one per scheme the service accepts (RFC 9110 §11.6.1),
 * each on its own header line, because browsers and some HTTP libraries read one challenge per line.
 * Bearer comes first (RFC 6750 §3); with a JWT issuer whose authorize endpoint is configured it
 * carries `authorization_uri`, which Excel's and Power BI's "Organizational account" credential reads
 * to find the identity provider (it probes with an empty `Authorization: Bearer`). Basic follows
 * (RFC 7617 §2): the user id as user name and an API token as password.
 */

/** The realm every challenge names. */
export const AUTH_REALM = 'ecn-odata';

/** What a challenge says beyond the schemes. */
export interface ChallengeOptions {
  /** The identity provider's OAuth 2.0 authorize endpoint (Microsoft's `authorization_uri` parameter). */
  readonly authorizationUri?: string;
  /** The credentials were sent and rejected (RFC 6750 §3.1 `invalid_token`); absent when none were sent. */
  readonly invalidToken?: boolean;
}

/** A quoted-string (RFC 9110 §5.6.4): backslash-escapes `"` and `\`. */
function quoted(text: string): string {
  return `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/** The header values of a 401: Bearer, then Basic. */
export function wwwAuthenticate(options: ChallengeOptions = {}): readonly string[] {
  let bearer = `Bearer realm=${quoted(AUTH_REALM)}`;
  if (options.invalidToken === true) bearer += ', error="invalid_token"';
  if (options.authorizationUri !== undefined) bearer += `, authorization_uri=${quoted(options.authorizationUri)}`;
  return [bearer, `Basic realm=${quoted(AUTH_REALM)}, charset="UTF-8"`];
}
