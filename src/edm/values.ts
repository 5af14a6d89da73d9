/**
 * Conversions of property values between their three forms: OData JSON (payloads), URL literals
 * (keys, filters), and storage (SQLite columns). Storage keeps GUIDs lower-case, DateTimeOffsets as
 * UTC ISO text with milliseconds, booleans as 0/1 and enums as their encoded member name.
 */
import type { Literal } from '../uri/ast.js';
import type { Property, PropertyType } from './model.js';
import { assertNever } from '../util/assert-never.js';

/** A value as stored in a column. */
export type StoredValue = string | number | null | Buffer;

/** The digits of a decimal value left and right of the point, leading and trailing zeros not counted. */
export interface DecimalDigits {
  readonly integer: number;
  readonly fraction: number;
}

/**
 * Counts the digits of a JSON number or numeric string (exponents included, `1.5e-7` has 8 fraction
 * digits), for the Precision and Scale facets of Edm.Decimal (CSDL §7.2.3, §7.2.4); undefined when the
 * value is not a finite decimal number.
 */
export function decimalDigits(value: number | string): DecimalDigits | undefined {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  const match = /^[+-]?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (match === null || `${match[1] ?? ''}${match[2] ?? ''}` === '') return undefined;
  const whole = match[1] ?? '';
  let digits = `${whole}${match[2] ?? ''}`;
  let point = whole.length + Number(match[3] ?? 0);
  const leading = /^0*/.exec(digits)?.[0].length ?? 0;
  digits = digits.slice(leading).replace(/0+$/, '');
  point -= leading;
  if (digits === '') return { integer: 0, fraction: 0 };
  return { integer: Math.max(point, 0), fraction: Math.max(digits.length - point, 0) };
}

/**
 * Checks a Decimal value against its declared facets: at most `scale` digits after the point and at
 * most `precision` significant digits, `precision - scale` of them before the point. Returns what is
 * wrong, or undefined when it fits (or no facet is declared).
 */
export function decimalFacetProblem(value: number | string, precision: number | undefined, scale: number | undefined): string | undefined {
  if (precision === undefined && scale === undefined) return undefined;
  const digits = decimalDigits(value);
  if (digits === undefined) return undefined;
  if (scale !== undefined && digits.fraction > scale) {
    return `has ${digits.fraction} digit${digits.fraction === 1 ? '' : 's'} after the decimal point, but at most ${scale} ${scale === 1 ? 'is' : 'are'} allowed (Scale ${scale})`;
  }
  if (precision !== undefined) {
    const before = precision - (scale ?? 0);
    if (digits.integer > before) return `has ${digits.integer} digits before the decimal point, but at most ${before} are allowed (Precision ${precision}${scale === undefined ? '' : `, Scale ${scale}`})`;
    if (digits.integer + digits.fraction > precision) return `has ${digits.integer + digits.fraction} significant digits, but at most ${precision} are allowed (Precision ${precision})`;
  }
  return undefined;
}

/**
 * true when `text` starts with a `YYYY-MM-DD` that names a day of the calendar: the URL grammar (and
 * JavaScript's Date, which rolls 2023-02-30 over to March 2) accept day 31 in every month.
 */
export function isCalendarDate(text: string): boolean {
  const m = /^(-?\d{4,})-(\d{2})-(\d{2})/.exec(text);
  if (m === null) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  return day <= days;
}

/** Normalises an ISO 8601 date-time with offset to UTC with milliseconds (text order = time order). */
export function normaliseDateTimeOffset(text: string): string {
  const d = new Date(text);
  if (Number.isNaN(d.getTime()) || !isCalendarDate(text)) throw new RangeError(`Invalid Edm.DateTimeOffset '${text}'`);
  return d.toISOString();
}

/** Converts a JSON payload value (already schema-validated) to its stored form. */
export function jsonToStored(value: unknown, p: Property): StoredValue {
  if (value === null || value === undefined) return null;
  const t = p.type;
  if (t.kind === 'enum') return String(value);
  switch (t.name) {
    case 'Edm.Guid':
      return String(value).toLowerCase();
    case 'Edm.Boolean':
      return value === true ? 1 : 0;
    case 'Edm.Int64': {
      if (typeof value === 'number') return value;
      // A string (IEEE754Compatible, JSON Format §3.2) past 2^53 stays text: SQLite stores it in the
      // INTEGER column exactly, where a JavaScript number would round it.
      const n = Number(value);
      return Number.isSafeInteger(n) ? n : String(value);
    }
    case 'Edm.Int32':
    case 'Edm.Decimal':
    case 'Edm.Double':
      return typeof value === 'number' ? value : Number(value);
    case 'Edm.DateTimeOffset':
      return normaliseDateTimeOffset(String(value));
    case 'Edm.String':
    case 'Edm.Date':
    case 'Edm.TimeOfDay':
      return String(value);
    case 'Edm.Stream':
      return Buffer.isBuffer(value) ? value : Buffer.from(String(value), 'utf8');
    default:
      return assertNever(t.name, 'EDM type');
  }
}

/** Options for writing values to JSON. */
export interface JsonValueOptions {
  /** IEEE754Compatible=true: Int64 and Decimal are written as strings (OData JSON §4.5). */
  readonly ieee754Compatible: boolean;
}

/** A double JSON has no number for, as OData JSON writes it (JSON Format §7.1): `INF`, `-INF` or `NaN`. */
export function nonFiniteDouble(value: number): string {
  return Number.isNaN(value) ? 'NaN' : value > 0 ? 'INF' : '-INF';
}

/** Converts a stored value to its OData JSON form. */
export function storedToJson(value: unknown, type: PropertyType, opts: JsonValueOptions): unknown {
  if (value === null || value === undefined) return null;
  if (type.kind === 'enum') return value;
  switch (type.name) {
    case 'Edm.Boolean':
      return value === 1 || value === true || value === '1';
    case 'Edm.Int64':
    case 'Edm.Decimal':
      return opts.ieee754Compatible ? String(value) : typeof value === 'bigint' ? Number(value) : value;
    case 'Edm.Double':
      return typeof value === 'number' && !Number.isFinite(value) ? nonFiniteDouble(value) : value;
    case 'Edm.Stream':
      return undefined;
    case 'Edm.Guid':
    case 'Edm.String':
    case 'Edm.Int32':
    case 'Edm.Date':
    case 'Edm.DateTimeOffset':
    case 'Edm.TimeOfDay':
      return value;
    default:
      return assertNever(type.name, 'EDM type');
  }
}

/** The stored value of a URL literal for a property, or an error message when it does not fit. */
export function literalToStored(lit: Literal, p: Property): { ok: true; value: StoredValue } | { ok: false; message: string } {
  const t = p.type;
  const bad = (what: string): { ok: false; message: string } => ({
    ok: false,
    message: `The literal ${what} does not fit property '${p.name}' of type ${t.kind === 'enum' ? t.enumType.qualifiedName : t.name}.`,
  });
  if (lit.kind === 'null') return { ok: true, value: null };
  if (t.kind === 'enum') {
    if (lit.kind === 'string' || (lit.kind === 'enum' && lit.typeName === t.enumType.qualifiedName && lit.members.length === 1)) {
      const name = lit.kind === 'string' ? lit.value : (lit.members[0] ?? '');
      return t.enumType.memberByEncoded.has(name) ? { ok: true, value: name } : bad(`'${name}'`);
    }
    return bad(lit.kind);
  }
  switch (t.name) {
    case 'Edm.Guid':
      if (lit.kind === 'guid') return { ok: true, value: lit.value.toLowerCase() };
      if (lit.kind === 'string' && GUID.test(lit.value)) return { ok: true, value: lit.value.toLowerCase() };
      return bad(describe(lit));
    case 'Edm.String':
      return lit.kind === 'string' ? { ok: true, value: lit.value } : bad(describe(lit));
    case 'Edm.Int32': {
      if (lit.kind !== 'integer') return bad(describe(lit));
      // A key past Int32 can name no row: refused, as SQLite and PostgreSQL would otherwise answer it differently (404, out of range).
      const n = Number(lit.value);
      return n >= -2147483648 && n <= 2147483647 ? { ok: true, value: n } : bad(String(lit.value));
    }
    case 'Edm.Int64':
      return lit.kind === 'integer' ? { ok: true, value: Number(lit.value) } : bad(describe(lit));
    case 'Edm.Decimal':
    case 'Edm.Double':
      return lit.kind === 'integer' || lit.kind === 'decimal' || lit.kind === 'double'
        ? { ok: true, value: Number(lit.value) }
        : bad(describe(lit));
    case 'Edm.Boolean':
      return lit.kind === 'boolean' ? { ok: true, value: lit.value ? 1 : 0 } : bad(describe(lit));
    case 'Edm.Date':
      if (lit.kind === 'date' && !isCalendarDate(lit.value)) return { ok: false, message: impossibleDate(lit.value) };
      return lit.kind === 'date' ? { ok: true, value: lit.value } : bad(describe(lit));
    case 'Edm.DateTimeOffset':
      if (lit.kind === 'dateTimeOffset' && !isCalendarDate(lit.value)) return { ok: false, message: impossibleDate(lit.value) };
      return lit.kind === 'dateTimeOffset' ? { ok: true, value: normaliseDateTimeOffset(lit.value) } : bad(describe(lit));
    case 'Edm.TimeOfDay':
      return lit.kind === 'timeOfDay' ? { ok: true, value: lit.value } : bad(describe(lit));
    case 'Edm.Stream':
      return bad(describe(lit));
    default:
      return assertNever(t.name, 'EDM type');
  }
}

/** The message of a date literal with a day its month does not have (conventions §2: 400 naming the literal). */
export function impossibleDate(text: string): string {
  return `The date ${text} does not exist: its month has fewer days.`;
}

/** Canonical GUID text (8-4-4-4-12 hex digits). */
export const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

function describe(lit: Literal): string {
  switch (lit.kind) {
    case 'string':
      return `'${lit.value}'`;
    case 'null':
      return 'null';
    case 'geo':
      return lit.text;
    case 'enum':
      return `${lit.typeName}'${lit.members.join(',')}'`;
    case 'boolean':
      return String(lit.value);
    case 'integer':
    case 'decimal':
    case 'double':
    case 'guid':
    case 'date':
    case 'dateTimeOffset':
    case 'timeOfDay':
    case 'duration':
    case 'binary':
      return lit.value;
    default:
      return assertNever(lit, 'literal');
  }
}
