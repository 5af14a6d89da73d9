/**
 * The `$skiptoken` of server-driven paging: the sort values and key of the last row of a page, as
 * base64url JSON. Decoding checks its shape; the values are bound as parameters like any literal.
 */
import { UriSyntaxError } from '../errors/odata-error.js';

/** A value a token may carry. */
export type TokenValue = string | number | null;

/** Encodes the values of the last row. */
export function encodeSkiptoken(values: readonly TokenValue[]): string {
  return Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');
}

/**
 * Decodes a token for a query sorted by `count` values (sort keys plus the entity key); `nullableKey`
 * when the last value may be null (the grouping values of aggregated results).
 */
export function decodeSkiptoken(token: string, count: number, nullableKey = false): TokenValue[] {
  const invalid = (): UriSyntaxError =>
    new UriSyntaxError('The $skiptoken is not valid for this request: follow the @odata.nextLink of the previous page unchanged.', '$skiptoken', 0);
  if (!/^[A-Za-z0-9_-]{1,4096}$/.test(token)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== count) throw invalid();
  for (const v of parsed) if (!(v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)))) throw invalid();
  if (parsed[parsed.length - 1] === null && !nullableKey) throw invalid();
  return parsed as TokenValue[];
}
