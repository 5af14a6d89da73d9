/**
 * Primitive literals in URLs (ABNF §7 `primitiveLiteral`): null, booleans, numbers, strings, GUIDs,
 * dates and times, durations, binaries, enum literals and spatial literals. The expression, key and
 * list parsers call `scanPrimitiveLiteral` wherever the grammar allows a literal.
 */
import type { Literal } from './ast.js';
import { isIdentifierPart, Lexer } from './lexer.js';
import { ParseBudget, DEFAULT_PARSE_LIMITS, type ParseLimits } from './parse-limits.js';
import {
  failedAt,
  scanBinary,
  scanDate,
  scanDateTimeOffset,
  scanDuration,
  scanEnumMembers,
  scanGuid,
  scanNanInfinity,
  scanNumber,
  scanString,
  scanTimeOfDay,
  stringValue,
} from './literal-scanners.js';
import { scanFullGeo } from './geo-literal.js';

const DATE_SHAPE = /-?\d{4,}-\d\d-\d\d/y;
const TIME_SHAPE = /\d\d:\d\d/y;
const GUID_SHAPE = /[0-9a-fA-F]{8}-/y;
const PREFIXES = ['binary', 'duration', 'geography', 'geometry'];

/**
 * Reads a primitive literal at the cursor (ABNF `primitiveLiteral`) and advances past it. Returns
 * undefined, without moving, when no literal starts there (a name, an operator, a parenthesis). Throws
 * when a literal clearly starts but is malformed, e.g. `2024-13-01` (no month 13).
 */
export function scanPrimitiveLiteral(lx: Lexer): Literal | undefined {
  const start = lx.pos;
  const ch = lx.char();
  if (ch === "'") return finish(lx, start, stringEnd(lx, start), (end) => ({ kind: 'string', value: stringValue(lx, start, end) }));
  if (ch === '-' || ch === '+' || (ch >= '0' && ch <= '9')) return numericLike(lx, start);
  if (!isIdentifierPart(ch)) return undefined;
  // A GUID may start with a hex letter; no name is followed by '-', so the shape commits.
  if (matches(GUID_SHAPE, lx, start)) return guid(lx, start);
  if (lx.wordAt('null', start, true)) return advance(lx, start + 4, { kind: 'null' });
  if (lx.wordAt('true', start)) return advance(lx, start + 4, { kind: 'boolean', value: true });
  if (lx.wordAt('false', start)) return advance(lx, start + 5, { kind: 'boolean', value: false });
  const special = scanNanInfinity(lx, start);
  if (special >= 0) return advance(lx, special, { kind: 'double', value: lx.text.slice(start, special) });
  return prefixedLiteral(lx, start);
}

function guid(lx: Lexer, start: number): Literal {
  return committed(lx, start, scanGuid(lx, start), 'a GUID (8-4-4-4-12 hexadecimal digits)', (end) => ({
    kind: 'guid',
    value: lx.text.slice(start, end).toLowerCase(),
  }));
}

/** `binary'..'`, `duration'..'`, `geography'..'`, `geometry'..'` and enum literals `NS.Type'Member,...'`. */
function prefixedLiteral(lx: Lexer, start: number): Literal | undefined {
  const nameEnd = lx.dottedNameEnd(start);
  if (nameEnd < 0 || lx.charAt(nameEnd) !== "'") return undefined;
  const prefix = lx.text.slice(start, nameEnd);
  const open = nameEnd + 1;
  const inner = (scan: (l: Lexer, at: number) => number, what: string, make: (text: string, end: number) => Literal): Literal => {
    const end = scan(lx, open);
    if (end < 0 || lx.charAt(end) !== "'") {
      throw lx.error(`${prefix}'...' must contain ${what}`, end < 0 ? failedAt(end) : end);
    }
    return finish(lx, start, end + 1, (after) => make(lx.text.slice(open, end), after));
  };
  if (prefix.includes('.')) {
    return inner(scanEnumMembers, 'enum member names or integers separated by commas', (text) => ({
      kind: 'enum',
      typeName: prefix,
      members: text.split(','),
    }));
  }
  switch (prefix.toLowerCase()) {
    case 'binary':
      return inner(scanBinary, 'base64url-encoded bytes', (text) => ({ kind: 'binary', value: text }));
    case 'duration':
      return inner(scanDuration, 'an ISO 8601 day-time duration such as P1DT2H', (text) => ({ kind: 'duration', value: text }));
    case 'geography':
    case 'geometry':
      return inner(scanFullGeo, "a spatial value such as SRID=0;Point(1 2)", (_text, end) => ({
        kind: 'geo',
        text: lx.text.slice(start, end + 1),
      }));
    default:
      throw lx.error(
        `'${prefix}' is not a literal prefix: use ${PREFIXES.join("'...', ")}'...' or a namespace-qualified enum type like NS.Color'Red'`,
        start,
      );
  }
}

/** Numbers, dates, times and GUIDs that start with a digit or a sign. */
function numericLike(lx: Lexer, start: number): Literal | undefined {
  if (matches(DATE_SHAPE, lx, start)) {
    if (/[Tt]/.test(lx.charAt(DATE_SHAPE.lastIndex))) {
      const what = 'an Edm.DateTimeOffset (YYYY-MM-DDThh:mm[:ss[.fff]] then Z or ±hh:mm)';
      return committed(lx, start, scanDateTimeOffset(lx, start), what, (end) => ({ kind: 'dateTimeOffset', value: lx.text.slice(start, end) }));
    }
    const what = 'an Edm.Date (YYYY-MM-DD, month 01-12, day 01-31)';
    return committed(lx, start, scanDate(lx, start), what, (end) => ({ kind: 'date', value: lx.text.slice(start, end) }));
  }
  if (matches(TIME_SHAPE, lx, start)) {
    return committed(lx, start, scanTimeOfDay(lx, start), 'an Edm.TimeOfDay (hh:mm[:ss[.fff]], hours 00-23)', (end) => ({
      kind: 'timeOfDay',
      value: lx.text.slice(start, end),
    }));
  }
  if (matches(GUID_SHAPE, lx, start)) return guid(lx, start);
  const special = scanNanInfinity(lx, start);
  if (special >= 0) return advance(lx, special, { kind: 'double', value: lx.text.slice(start, special) });
  const next = lx.charAt(start + 1);
  if ((lx.charAt(start) === '-' || lx.charAt(start) === '+') && !(next >= '0' && next <= '9')) return undefined;
  return committed(lx, start, scanNumber(lx, start), 'a number', (end) => numberLiteral(lx.text.slice(start, end)));
}

/** Classifies number text the way the ABNF does: exponent → double, fraction → decimal, else integer. */
export function numberLiteral(text: string): Literal {
  const value = text.startsWith('+') ? text.slice(1) : text;
  if (/[eE]/.test(value)) return { kind: 'double', value };
  if (value.includes('.')) return { kind: 'decimal', value };
  // ABNF int64Literal has at most 19 digits; longer digit strings are decimalLiteral.
  return value.replace('-', '').length > 19 ? { kind: 'decimal', value } : { kind: 'integer', value };
}

function matches(shape: RegExp, lx: Lexer, at: number): boolean {
  shape.lastIndex = at;
  return shape.test(lx.text) && shape.lastIndex <= lx.end;
}

function stringEnd(lx: Lexer, start: number): number {
  const end = scanString(lx, start);
  if (end >= 0) return end;
  // In a path a raw '/' splits the segment first, so an unclosed key string usually means exactly that.
  const hint = lx.option === 'path' ? "; a '/' inside a key must be written %2F" : '';
  throw lx.error(`the string literal has no closing quote (write '' for a quote inside a string${hint})`, start);
}

/** A literal whose shape was recognised: a failed scan is an error at the point where it broke. */
function committed(lx: Lexer, start: number, end: number, what: string, make: (end: number) => Literal): Literal {
  if (end < 0) throw lx.error(`'${literalText(lx, start)}' is not ${what}`, failedAt(end));
  return finish(lx, start, end, make);
}

/** The literal-looking text at `start` for messages: letters, digits and the punctuation of dates and numbers. */
function literalText(lx: Lexer, start: number): string {
  let i = start + 1;
  while (i < lx.end && i - start < 40 && /[\w:.+\-]/.test(lx.charAt(i))) i++;
  return lx.text.slice(start, i);
}

/** Checks that a literal is not glued to a following name character (`12ab`, `'x'y`), then advances. */
function finish(lx: Lexer, start: number, end: number, make: (end: number) => Literal): Literal {
  if (isIdentifierPart(lx.charAt(end))) {
    const text = lx.text.slice(start, end);
    throw lx.error(
      text.startsWith("'")
        ? `the string ${text} is followed by '${lx.charAt(end)}': a quote inside a string is written as two quotes ('')`
        : `unexpected '${lx.charAt(end)}' directly after the literal ${text}`,
      end,
    );
  }
  return advance(lx, end, make(end));
}

function advance(lx: Lexer, end: number, literal: Literal): Literal {
  lx.pos = end;
  return literal;
}

/** Parses a whole decoded text as one primitive literal (ABNF `primitiveLiteral`), e.g. a key value. */
export function parsePrimitiveLiteral(text: string, option = 'literal', limits: ParseLimits = DEFAULT_PARSE_LIMITS): Literal {
  const lx = new Lexer(text, option, new ParseBudget(limits));
  const literal = scanPrimitiveLiteral(lx);
  if (literal === undefined) throw lx.expected('a literal value');
  if (!lx.atEnd) throw lx.expected('the end of the literal');
  return literal;
}
