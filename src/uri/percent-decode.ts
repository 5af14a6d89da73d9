/**
 * Percent-decoding of path segments, query option names and values (URL Conventions 4.01 §2.1: split
 * the undecoded URL first, then decode each part exactly once). `+` is not a space: OData URLs are not
 * HTML form encoding.
 */
import { UriSyntaxError } from '../errors/odata-error.js';

/**
 * Decodes `%XX` escapes (UTF-8) in one URL part. `option` and `offset` place errors: the position is
 * the offset of the bad escape in the raw part, which is where the decoded text breaks too.
 */
export function percentDecode(raw: string, option: string, offset = 0): string {
  const first = raw.indexOf('%');
  if (first < 0) return raw;
  for (let i = first; i < raw.length; i++) {
    if (raw.charCodeAt(i) !== 0x25) continue;
    if (!isHex(raw.charCodeAt(i + 1)) || !isHex(raw.charCodeAt(i + 2))) {
      throw new UriSyntaxError(
        `Syntax error at position ${offset + i} in ${where(option)}: '%' must start a percent-encoding like %20 ` +
          `(write %25 for a literal '%') but found '${raw.slice(i, i + 3)}'.`,
        option,
        offset + i,
      );
    }
    i += 2;
  }
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new UriSyntaxError(
      `Syntax error at position ${offset + first} in ${where(option)}: the percent-encoded bytes are not valid UTF-8.`,
      option,
      offset + first,
    );
  }
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function where(option: string): string {
  return option === 'path' ? 'the resource path' : option;
}
