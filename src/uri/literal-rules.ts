/**
 * Checks a whole text against one named literal rule of ABNF §7: the URL forms (`dateTimeOffsetLiteral`,
 * `enumLiteral`, ...; percent-decoded by the caller) and the payload forms (`dateTimeOffsetValue`,
 * `enumValue`, `primitiveValue`, ... as used in CSDL default values), which allow no percent-encoding.
 */
import type { Literal } from './ast.js';
import { Lexer } from './lexer.js';
import { ParseBudget, DEFAULT_PARSE_LIMITS } from './parse-limits.js';
import { numberLiteral, parsePrimitiveLiteral, scanPrimitiveLiteral } from './parse-literal.js';
import {
  failedAt,
  scanBinary,
  scanDate,
  scanDateTimeOffset,
  scanDigits,
  scanDuration,
  scanEnumMembers,
  scanGuid,
  scanNanInfinity,
  scanNumber,
  scanTimeOfDay,
} from './literal-scanners.js';
import { geoShapeAt, scanFullGeo } from './geo-literal.js';

type Scan = (lx: Lexer, at: number) => number;

/** How many digits an integer rule allows (ABNF `byte` = 1*3DIGIT ... `int64Value` = 1*19DIGIT) and whether it takes a sign. */
const INTEGER_RULES: Readonly<Record<string, readonly [number, boolean]>> = {
  byte: [3, false],
  bytevalue: [3, false],
  sbyteliteral: [3, true],
  sbytevalue: [3, true],
  int16literal: [5, true],
  int16value: [5, true],
  int32literal: [10, true],
  int32value: [10, true],
  int64literal: [19, true],
  int64value: [19, true],
};

const GEO_RULE = /^(geography|geometry)(collection|linestring|multilinestring|multipoint|multipolygon|point|polygon)$/;

/** The literal rule names `parseLiteralAs` knows, lower-cased. */
export function isLiteralRule(rule: string): boolean {
  const r = rule.toLowerCase();
  return r in INTEGER_RULES || GEO_RULE.test(r) || r in SIMPLE || r === 'primitiveliteral' || r === 'primitivevalue' || r in SPECIAL;
}

const SIMPLE: Readonly<Record<string, readonly [Scan, (text: string) => Literal]>> = {
  guid: [scanGuid, (t) => ({ kind: 'guid', value: t.toLowerCase() })],
  guidvalue: [scanGuid, (t) => ({ kind: 'guid', value: t.toLowerCase() })],
  date: [scanDate, (t) => ({ kind: 'date', value: t })],
  datevalue: [scanDate, (t) => ({ kind: 'date', value: t })],
  datetimeoffsetliteral: [scanDateTimeOffset, (t) => ({ kind: 'dateTimeOffset', value: t })],
  datetimeoffsetvalue: [scanDateTimeOffset, (t) => ({ kind: 'dateTimeOffset', value: t })],
  datetimeoffsetvalueinurl: [scanDateTimeOffset, (t) => ({ kind: 'dateTimeOffset', value: t })],
  timeofdayliteral: [scanTimeOfDay, (t) => ({ kind: 'timeOfDay', value: t })],
  timeofdayvalue: [scanTimeOfDay, (t) => ({ kind: 'timeOfDay', value: t })],
  durationvalue: [scanDuration, (t) => ({ kind: 'duration', value: t })],
  binaryvalue: [scanBinary, (t) => ({ kind: 'binary', value: t })],
  enumvalue: [scanEnumMembers, (t) => ({ kind: 'enum', typeName: '', members: t.split(',') })],
  // ABNF: doubleLiteral = singleLiteral = decimalLiteral (and the same for the payload forms).
  decimalliteral: [scanDecimal, numberLiteral],
  decimalvalue: [scanDecimal, numberLiteral],
  doubleliteral: [scanDecimal, numberLiteral],
  doublevalue: [scanDecimal, numberLiteral],
  singleliteral: [scanDecimal, numberLiteral],
  singlevalue: [scanDecimal, numberLiteral],
};

const SPECIAL: Readonly<Record<string, true>> = {
  null: true,
  boolean: true,
  booleanvalue: true,
  stringliteral: true,
  durationliteral: true,
  binaryliteral: true,
  enumliteral: true,
};

/**
 * Parses `text` as the named ABNF literal rule (case-insensitive), throwing a UriSyntaxError with the
 * rule name as option when the whole text does not match.
 */
export function parseLiteralAs(rule: string, text: string): Literal {
  const r = rule.toLowerCase();
  const lx = new Lexer(text, rule, new ParseBudget(DEFAULT_PARSE_LIMITS));
  const simple = SIMPLE[r];
  if (simple !== undefined) return whole(lx, simple[0], rule, simple[1]);
  const integer = INTEGER_RULES[r];
  if (integer !== undefined) {
    const [digits, signed] = integer;
    const scan: Scan = (l, at) => scanDigits(l, signed && /[+-]/.test(l.charAt(at)) ? at + 1 : at, 1, digits);
    return whole(lx, scan, rule, numberLiteral);
  }
  const geo = GEO_RULE.exec(r);
  if (geo !== null) return geoRule(lx, geo[1] ?? '', geo[2] ?? '', rule);
  switch (r) {
    case 'primitiveliteral':
      return parsePrimitiveLiteral(text, rule);
    case 'primitivevalue':
      return primitiveValue(text, rule);
    case 'booleanvalue':
      if (text === 'true' || text === 'false') return { kind: 'boolean', value: text === 'true' };
      throw lx.expected("'true' or 'false' in lower case", 0);
    case 'durationliteral':
      // The ABNF allows the bare form 'P1D' here, which primitiveLiteral would read as a string.
      if (text.startsWith("'")) return whole(new Lexer(text.slice(1, -1), rule, lx.budget), scanDuration, rule, (t) => ({ kind: 'duration', value: t }));
      return expectKind(parsePrimitiveLiteral(text, rule), 'duration', lx);
    case 'enumliteral':
      // Also unqualified, `'Yellow'` (the type comes from context); primitiveLiteral reads that as a string.
      if (text.startsWith("'")) {
        return whole(new Lexer(text.slice(1, -1), rule, lx.budget), scanEnumMembers, rule, (t) => ({ kind: 'enum', typeName: '', members: t.split(',') }));
      }
      return expectKind(parsePrimitiveLiteral(text, rule), 'enum', lx);
    case 'null':
    case 'boolean':
    case 'stringliteral':
    case 'binaryliteral': {
      const kind = r === 'stringliteral' ? 'string' : r === 'binaryliteral' ? 'binary' : r;
      return expectKind(parsePrimitiveLiteral(text, rule), kind, lx);
    }
    default:
      throw new Error(`Unknown literal rule '${rule}'`);
  }
}

function scanDecimal(lx: Lexer, at: number): number {
  const special = scanNanInfinity(lx, at);
  return special >= 0 ? special : scanNumber(lx, at);
}

/** Runs a scanner that must cover the whole text. */
function whole(lx: Lexer, scan: Scan, rule: string, make: (text: string) => Literal): Literal {
  const end = scan(lx, 0);
  if (end < 0) throw lx.error(`'${lx.text}' is not a valid ${rule}`, failedAt(end));
  if (end !== lx.text.length) throw lx.expected(`the end of the ${rule}`, end);
  return make(lx.text.slice(0, end));
}

function expectKind(literal: Literal, kind: string, lx: Lexer): Literal {
  if (literal.kind !== kind) throw lx.error(`expected ${article(kind)} literal but found ${article(literal.kind)} literal`, 0);
  return literal;
}

function article(word: string): string {
  return `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;
}

/** `geographyPoint` ... `geometryCollection`: the prefix, and a literal of exactly that shape. */
function geoRule(lx: Lexer, prefix: string, shape: string, rule: string): Literal {
  const literal = scanPrimitiveLiteral(lx);
  if (literal === undefined || literal.kind !== 'geo' || !lx.atEnd) throw lx.expected(`a ${rule} literal`, literal === undefined ? 0 : lx.pos);
  const inner = new Lexer(literal.text, rule, lx.budget);
  const sridEnd = literal.text.indexOf(';') + 1;
  const found = geoShapeAt(inner, sridEnd)?.toLowerCase();
  const wanted = shape === 'collection' ? 'geometrycollection' : shape;
  if (!literal.text.toLowerCase().startsWith(prefix) || found !== wanted) throw lx.error(`expected a ${rule} literal`, 0);
  return literal;
}

/** ABNF `primitiveValue` (payload form): the first alternative that covers the whole text wins. */
function primitiveValue(text: string, rule: string): Literal {
  const budget = new ParseBudget(DEFAULT_PARSE_LIMITS);
  const tries: readonly (readonly [Scan, (t: string) => Literal])[] = [
    [(l, at) => (l.wordAt('true', at, true) ? at + 4 : l.wordAt('false', at, true) ? at + 5 : -1), (t): Literal => ({ kind: 'boolean', value: t === 'true' })],
    ...(['guidvalue', 'datetimeoffsetvalue', 'datevalue', 'timeofdayvalue', 'decimalvalue', 'durationvalue'] as const).map(
      (k) => SIMPLE[k] as readonly [Scan, (t: string) => Literal],
    ),
    [scanFullGeo, (t): Literal => ({ kind: 'geo', text: t })],
    SIMPLE['enumvalue'] as readonly [Scan, (t: string) => Literal],
    SIMPLE['binaryvalue'] as readonly [Scan, (t: string) => Literal],
  ];
  let furthest = 0;
  for (const [scan, make] of tries) {
    const end = scan(new Lexer(text, rule, budget), 0);
    if (end === text.length) return make(text);
    furthest = Math.max(furthest, end < 0 ? failedAt(end) : end);
  }
  throw new Lexer(text, rule, budget).error(`'${text}' is not a valid primitive value`, furthest);
}
