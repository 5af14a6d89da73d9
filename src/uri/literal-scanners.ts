/**
 * Scanners for the lexical forms of ABNF §7 (Literal Data Values): dates, times, GUIDs, numbers,
 * durations, base64url binaries, strings and enum member lists. Each scanner looks at the text from
 * an offset without moving the cursor and returns the end offset on success, or `fail(p)` with the
 * offset where the form broke, so callers can report a precise position. Ranges (month 01-12,
 * hour 00-23, ...) are checked exactly as the ABNF spells them.
 */
import { isDigit, isIdentifierPart, type Lexer } from './lexer.js';

/** Encodes a failure at offset `p` as a negative scan result. */
export function fail(p: number): number {
  return -1 - p;
}

/** The offset where a failed scan broke. */
export function failedAt(result: number): number {
  return -1 - result;
}

function code(lx: Lexer, at: number): number {
  return at < lx.end ? lx.text.charCodeAt(at) : -1;
}

function ci(lx: Lexer, at: number, letter: string): boolean {
  return lx.charAt(at).toLowerCase() === letter;
}

/** `min`..`max` digits at `at`; fails at the first missing digit or at the first digit too many. */
export function scanDigits(lx: Lexer, at: number, min: number, max = Infinity): number {
  let i = at;
  while (isDigit(code(lx, i)) && i - at < max) i++;
  if (i - at < min) return fail(i);
  if (max !== Infinity && isDigit(code(lx, i))) return fail(i);
  return i;
}

/** ABNF `year = [ "-" ] ( "0" 3DIGIT / oneToNine 3*DIGIT )`. */
function scanYear(lx: Lexer, at: number): number {
  let i = at;
  if (lx.charAt(i) === '-') i++;
  if (!isDigit(code(lx, i))) return fail(i);
  return lx.charAt(i) === '0' ? scanDigits(lx, i + 1, 3, 3) : scanDigits(lx, i + 1, 3);
}

/** Two digits `a b` where the pair must satisfy `allowed`; fails at `a` if no pair can start with it, else at `b`. */
function scanTwo(lx: Lexer, at: number, allowed: (a: number, b: number) => boolean): number {
  const a = code(lx, at) - 48;
  const b = code(lx, at + 1) - 48;
  if (a < 0 || a > 9 || !DIGITS.some((d) => allowed(a, d))) return fail(at);
  if (b < 0 || b > 9 || !allowed(a, b)) return fail(at + 1);
  return at + 2;
}

const DIGITS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const month = (a: number, b: number): boolean => (a === 0 && b >= 1) || (a === 1 && b <= 2);
const day = (a: number, b: number): boolean => (a === 0 && b >= 1) || a === 1 || a === 2 || (a === 3 && b <= 1);
const hour = (a: number, b: number): boolean => a <= 1 || (a === 2 && b <= 3);
const minute = (a: number): boolean => a <= 5;
const second = (a: number, b: number): boolean => a <= 5 || (a === 6 && b === 0);

/** ABNF `date = year "-" month "-" day`. */
export function scanDate(lx: Lexer, at: number): number {
  const y = scanYear(lx, at);
  if (y < 0) return y;
  if (lx.charAt(y) !== '-') return fail(y);
  const m = scanTwo(lx, y + 1, month);
  if (m < 0) return m;
  if (lx.charAt(m) !== '-') return fail(m);
  return scanTwo(lx, m + 1, day);
}

/** ABNF `timeOfDayValue = hour ":" minute [ ":" second [ "." fractionalSeconds ] ]` (colons already decoded). */
export function scanTimeOfDay(lx: Lexer, at: number): number {
  const h = scanTwo(lx, at, hour);
  if (h < 0) return h;
  if (lx.charAt(h) !== ':') return fail(h);
  const m = scanTwo(lx, h + 1, minute);
  if (m < 0 || lx.charAt(m) !== ':') return m;
  const s = scanTwo(lx, m + 1, second);
  if (s < 0 || lx.charAt(s) !== '.') return s;
  return scanDigits(lx, s + 1, 1, 12);
}

/** ABNF `dateTimeOffsetValue = date "T" timeOfDay ( "Z" / SIGN hour ":" minute )`. */
export function scanDateTimeOffset(lx: Lexer, at: number): number {
  const d = scanDate(lx, at);
  if (d < 0) return d;
  if (!ci(lx, d, 't')) return fail(d);
  const t = scanTimeOfDay(lx, d + 1);
  if (t < 0) return t;
  if (ci(lx, t, 'z')) return t + 1;
  const sign = lx.charAt(t);
  if (sign !== '+' && sign !== '-') return fail(t);
  const h = scanTwo(lx, t + 1, hour);
  if (h < 0) return h;
  if (lx.charAt(h) !== ':') return fail(h);
  return scanTwo(lx, h + 1, minute);
}

/** ABNF `guid = 8HEXDIG "-" 4HEXDIG "-" 4HEXDIG "-" 4HEXDIG "-" 12HEXDIG`. */
export function scanGuid(lx: Lexer, at: number): number {
  let i = at;
  for (let n = 0; n < GUID_GROUPS.length; n++) {
    if (n > 0) {
      if (code(lx, i) !== 0x2d) return fail(i);
      i++;
    }
    const end = i + (GUID_GROUPS[n] as number);
    for (; i < end; i++) if (!isHexDigit(code(lx, i))) return fail(i);
  }
  return isHexDigit(code(lx, i)) ? fail(i) : i;
}

/** Hexadecimal digits per `-`-separated group of a GUID. */
const GUID_GROUPS = [8, 4, 4, 4, 12] as const;

/** True for 0-9, A-F, a-f. */
export function isHexDigit(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** ABNF `decimalValue` without `nanInfinity`: `[SIGN] 1*DIGIT ["." 1*DIGIT] ["e" [SIGN] 1*DIGIT]`. */
export function scanNumber(lx: Lexer, at: number): number {
  let i = at;
  const c = lx.charAt(i);
  if (c === '+' || c === '-') i++;
  i = scanDigits(lx, i, 1);
  if (i < 0) return i;
  if (lx.charAt(i) === '.') {
    i = scanDigits(lx, i + 1, 1);
    if (i < 0) return i;
  }
  if (ci(lx, i, 'e')) {
    let j = i + 1;
    const s = lx.charAt(j);
    if (s === '+' || s === '-') j++;
    i = scanDigits(lx, j, 1);
  }
  return i;
}

/** ABNF `nanInfinity = %s"NaN" / %s"-INF" / %s"INF"`, not followed by a name character. */
export function scanNanInfinity(lx: Lexer, at: number): number {
  for (const word of ['NaN', '-INF', 'INF']) {
    if (lx.startsWith(word, at) && !isIdentifierPart(lx.charAt(at + word.length))) return at + word.length;
  }
  return fail(at);
}

/** ABNF `durationValue = [ "-" ] "P" [ 1*DIGIT "D" ] [ "T" [ 1*DIGIT "H" ] [ 1*DIGIT "M" ] [ 1*DIGIT [ "." 1*DIGIT ] "S" ] ]`. */
export function scanDuration(lx: Lexer, at: number): number {
  let i = at;
  if (lx.charAt(i) === '-') i++;
  if (!ci(lx, i, 'p')) return fail(i);
  i = optionalUnit(lx, i + 1, 'd', false);
  if (!ci(lx, i, 't')) return i;
  i++;
  i = optionalUnit(lx, i, 'h', false);
  i = optionalUnit(lx, i, 'm', false);
  return optionalUnit(lx, i, 's', true);
}

/** `[ 1*DIGIT [ "." 1*DIGIT ] unit ]`: consumed only when the whole group matches, as ABNF options do. */
function optionalUnit(lx: Lexer, at: number, unit: string, fraction: boolean): number {
  let i = scanDigits(lx, at, 1);
  if (i < 0) return at;
  if (fraction && lx.charAt(i) === '.') {
    i = scanDigits(lx, i + 1, 1);
    if (i < 0) return at;
  }
  return ci(lx, i, unit) ? i + 1 : at;
}

const B64_16 = 'AEIMQUYcgkosw048';
const B64_8 = 'AQgw';

/** ABNF `binaryValue`: base64url in groups of four, with an optional padded tail (RFC 4648 §5). */
export function scanBinary(lx: Lexer, at: number): number {
  let n = 0;
  while (isBase64(lx.charAt(at + n))) n++;
  const quads = at + n - (n % 4);
  switch (n % 4) {
    case 0:
      return quads;
    case 3:
      if (!B64_16.includes(lx.charAt(quads + 2))) return fail(quads + 2);
      return lx.charAt(quads + 3) === '=' ? quads + 4 : quads + 3;
    case 2:
      if (!B64_8.includes(lx.charAt(quads + 1))) return fail(quads + 1);
      return lx.startsWith('==', quads + 2) ? quads + 4 : quads + 2;
    default:
      return fail(quads + 1);
  }
}

function isBase64(ch: string): boolean {
  return ch !== '' && (isIdentifierPart(ch) || ch === '-') && ch.charCodeAt(0) < 0x80;
}

/** ABNF `stringLiteral`: `'...'` with `''` for a quote inside; returns the offset after the closing quote. */
export function scanString(lx: Lexer, at: number): number {
  if (lx.charAt(at) !== "'") return fail(at);
  let i = at + 1;
  for (;;) {
    const q = lx.text.indexOf("'", i);
    if (q < 0 || q >= lx.end) return fail(lx.end);
    if (lx.charAt(q + 1) !== "'") return q + 1;
    i = q + 2;
  }
}

/** The value of a scanned string literal `'...'` ending before `end`, with `''` unescaped. */
export function stringValue(lx: Lexer, start: number, end: number): string {
  return lx.text.slice(start + 1, end - 1).replaceAll("''", "'");
}

/** ABNF `singleEnumValue *( "," singleEnumValue )`: member names or signed integers. */
export function scanEnumMembers(lx: Lexer, at: number): number {
  let i = at;
  for (;;) {
    const name = lx.identifierEnd(i);
    if (name >= 0) {
      i = name;
    } else {
      const c = lx.charAt(i);
      i = scanDigits(lx, c === '+' || c === '-' ? i + 1 : i, 1, 19);
      if (i < 0) return i;
    }
    if (lx.charAt(i) !== ',') return i;
    i++;
  }
}
