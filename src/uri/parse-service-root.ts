/**
 * The service root of an absolute OData URL (ABNF `serviceRoot = ( "https" / "http" ) "://" host
 * [ ":" port ] "/" *( segment-nz "/" )`, host per RFC 3986 §3.2.2 including IPv6 and IPvFuture).
 * A server normally knows its own root; this is for absolute URLs it receives as data (`$id`,
 * `@odata.id`) and for the conformance corpus.
 */
import { UriSyntaxError } from '../errors/odata-error.js';

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV_FUTURE = /^v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/;
const REG_NAME = /^([A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const H16 = /^[0-9A-Fa-f]{1,4}$/;

/** Where the service root ends: the offset just after its final `/`. */
export interface ServiceRoot {
  readonly scheme: 'http' | 'https';
  readonly host: string;
  readonly port?: number;
  readonly end: number;
}

/**
 * Reads the scheme, authority and root path of `text`. The ABNF's `*( segment-nz "/" )` is greedy,
 * so the root runs to the last `/` before the query; a caller that knows its root should compare
 * and strip it itself instead.
 */
export function parseServiceRoot(text: string): ServiceRoot {
  const scheme = /^https?/i.exec(text)?.[0].toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') throw rootError('expected http:// or https://', 0);
  if (!text.startsWith('://', scheme.length)) throw rootError("expected '://' after the scheme", scheme.length);
  const authorityStart = scheme.length + 3;
  let slash = text.indexOf('/', authorityStart);
  const stop = firstOf(text, '?#', authorityStart);
  if (slash < 0 || slash > stop) throw rootError("the service root must end with '/'", stop);
  const authority = text.slice(authorityStart, slash);
  const { host, port } = splitAuthority(authority, authorityStart);
  const query = firstOf(text, '?#', slash);
  const lastSlash = text.lastIndexOf('/', query - 1);
  slash = Math.max(slash, lastSlash);
  return { scheme, host, ...(port === undefined ? {} : { port }), end: slash + 1 };
}

function splitAuthority(authority: string, offset: number): { host: string; port?: number } {
  let host = authority;
  let portText: string | undefined;
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    if (close < 0) throw rootError("expected ']' closing the IP literal", offset + authority.length);
    host = authority.slice(0, close + 1);
    const after = authority.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) throw rootError("expected ':' and a port after the IP literal", offset + close + 1);
    portText = after === '' ? undefined : after.slice(1);
    const inner = host.slice(1, -1);
    if (!isIpv6(inner) && !IPV_FUTURE.test(inner)) throw rootError(`'${inner}' is not an IPv6 or IPvFuture address`, offset + 1);
  } else {
    const colon = authority.lastIndexOf(':');
    if (colon >= 0) {
      host = authority.slice(0, colon);
      portText = authority.slice(colon + 1);
    }
    if (host === '' || (!IPV4.test(host) && !REG_NAME.test(host))) throw rootError(`'${host}' is not a valid host name`, offset);
  }
  if (portText !== undefined && !/^\d*$/.test(portText)) throw rootError(`'${portText}' is not a port number`, offset + authority.length - portText.length);
  return { host, ...(portText === undefined || portText === '' ? {} : { port: Number(portText) }) };
}

/** RFC 3986 `IPv6address`: eight 16-bit groups, `::` once for a run of zeros, an IPv4 tail allowed. */
function isIpv6(text: string): boolean {
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groups = halves.map((h) => (h === '' ? [] : h.split(':')));
  const all = groups.flat();
  const last = all[all.length - 1];
  let count = all.length;
  if (last !== undefined && last.includes('.')) {
    if (!IPV4.test(last)) return false;
    all.pop();
    count += 1;
  }
  if (!all.every((g) => H16.test(g))) return false;
  return halves.length === 2 ? count <= 7 : count === 8;
}

function firstOf(text: string, chars: string, from: number): number {
  let best = text.length;
  for (const c of chars) {
    const i = text.indexOf(c, from);
    if (i >= 0 && i < best) best = i;
  }
  return best;
}

function rootError(detail: string, position: number): UriSyntaxError {
  return new UriSyntaxError(`Syntax error at position ${position} in the service root: ${detail}.`, 'serviceRoot', position);
}
