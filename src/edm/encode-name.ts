/**
 * OData-encoding of names that are not identifiers (enum member names such as `Prod. Order` or ` `).
 * Business Central writes them the way .NET's XmlConvert.EncodeName does: every character that may
 * not appear in a CSDL SimpleIdentifier (CSDL XML §17.2, edm.xsd TSimpleIdentifier) becomes
 * `_xHHHH_` with the four upper-case hex digits of its UTF-16 code unit. An `_` that would be read
 * back as the start of such an escape is itself escaped as `_x005F_`, so decoding is exact.
 */

/** Characters allowed first in a SimpleIdentifier: letters, letter numbers, `_`. */
const FIRST_CHAR = /^[\p{L}\p{Nl}_]$/u;
/** Characters allowed after the first: also digits, combining marks, connector punctuation, format chars. */
const OTHER_CHAR = /^[\p{L}\p{Nl}\p{Nd}\p{Mn}\p{Mc}\p{Pc}\p{Cf}]$/u;
/** An escape sequence as the decoder reads it (.NET also accepts an upper-case X). */
const ESCAPE_AT_START = /^_[xX][0-9A-Fa-f]{4}_/;
const ESCAPES = /_[xX]([0-9A-Fa-f]{4})_/g;

/** `_xHHHH_` for each UTF-16 code unit of `char` (a non-BMP character gives two escapes, as in .NET). */
function escapeChar(char: string): string {
  let out = '';
  for (let i = 0; i < char.length; i++) {
    out += `_x${char.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0')}_`;
  }
  return out;
}

/** Encodes a business name as an OData SimpleIdentifier, e.g. `Prod. Order` → `Prod_x002E__x0020_Order`. */
export function encodeODataName(name: string): string {
  let out = '';
  let offset = 0;
  // Iterate by code point so that a letter outside the BMP stays one (allowed) character.
  for (const char of name) {
    const allowed = offset === 0 ? FIRST_CHAR.test(char) : OTHER_CHAR.test(char);
    if (char === '_' && ESCAPE_AT_START.test(name.slice(offset))) {
      out += escapeChar('_');
    } else {
      out += allowed ? char : escapeChar(char);
    }
    offset += char.length;
  }
  return out;
}

/** Decodes an encoded name back to the business name, e.g. `_x0020_` → ` ` (inverse of encodeODataName). */
export function decodeODataName(encoded: string): string {
  return encoded.replace(ESCAPES, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** true when `name` is a valid CSDL SimpleIdentifier (at most 128 characters). */
export function isSimpleIdentifier(name: string): boolean {
  const chars = [...name];
  if (chars.length === 0 || chars.length > 128) return false;
  return chars.every((char, index) => (index === 0 ? FIRST_CHAR : OTHER_CHAR).test(char));
}
