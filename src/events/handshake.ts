/**
 * The validation handshake of a new webhook subscription (conventions §6; Business Central's webhooks):
 * POST `notificationUrl?validationToken=<random>` and require the token back in the body within the
 * time limit (5 s), as text/plain or as a JSON string, with status 200. Anything else refuses the
 * subscription with a 400 that says what the endpoint did.
 */
import { randomBytes } from 'node:crypto';
import { BusinessRuleError } from '../errors/odata-error.js';
import { OutboundError, type OutboundHttp, type OutboundResponse } from './outbound.js';

const TARGET = 'notificationUrl';

/** The token as the endpoint echoed it: the trimmed body, or the string a JSON body holds. */
function echoed(res: OutboundResponse): string {
  const text = res.body.trim();
  if (text.startsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'string') return parsed;
    } catch {
      // not JSON: compare the text as it is
    }
  }
  return text;
}

function refused(url: URL, why: string): BusinessRuleError {
  return new BusinessRuleError(
    `The notification URL ${url.origin}${url.pathname} failed the validation handshake: ${why} ` +
      'On a POST with the query parameter validationToken, the endpoint must answer 200 with the token as the body (text/plain) within 5 seconds.',
    TARGET,
  );
}

/** Runs the handshake; throws BusinessRuleError (400) unless the endpoint echoes the token. */
export async function validationHandshake(outbound: OutboundHttp, url: URL, timeoutMs: number): Promise<void> {
  const token = randomBytes(24).toString('base64url');
  const target = new URL(url);
  target.searchParams.append('validationToken', token);
  let res: OutboundResponse;
  try {
    res = await outbound.post({ url: target, body: '', headers: { 'content-type': 'text/plain; charset=utf-8', 'user-agent': 'ecn-odata-webhooks/1' }, timeoutMs });
  } catch (e) {
    if (!(e instanceof OutboundError)) throw e;
    if (e.kind === 'forbidden') throw new BusinessRuleError(e.message, TARGET);
    throw refused(url, e.kind === 'timeout' ? `no answer within ${timeoutMs / 1000} seconds.` : `the request failed (${e.message}).`);
  }
  if (res.status >= 300 && res.status < 400) throw refused(url, `it answered ${res.status} (redirects are not followed).`);
  if (res.status !== 200) throw refused(url, `it answered ${res.status}.`);
  if (echoed(res) !== token) throw refused(url, 'the body of its answer is not the validation token.');
}
