/**
 * The JavaScript functions the SQLite dialect calls, registered on every connection that runs its
 * statements (the service's own and each read thread's): Unicode case mapping and regular
 * expressions OData needs, the ETag and number spellings of the entity JSON, and the limit the
 * database meets while a statement runs.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { formatEtag } from '../../edm/etag.js';
import { nonFiniteDouble } from '../../edm/values.js';
import { QueryLimitError } from '../../errors/odata-error.js';

const regexCache = new Map<string, RegExp | null>();

/** A compiled regular expression for matchesPattern, or null when the pattern is invalid. */
function regex(pattern: string): RegExp | null {
  let r = regexCache.get(pattern);
  if (r === undefined) {
    try {
      r = new RegExp(pattern, 'u');
    } catch {
      r = null;
    }
    if (regexCache.size > 500) regexCache.clear();
    regexCache.set(pattern, r);
  }
  return r;
}

/** `x` as the decimal its shortest text spells: `digits / 10^scale`, scale ≥ 0. */
function decimalOf(x: number): { readonly digits: bigint; readonly scale: number } {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(x)) as RegExpExecArray;
  const fraction = m[3] ?? '';
  const scale = fraction.length - Number(m[4] ?? 0);
  const digits = BigInt(`${m[1]}${m[2]}${fraction}`);
  return scale >= 0 ? { digits, scale } : { digits: digits * 10n ** BigInt(-scale), scale: 0 };
}

/**
 * The true remainder of the decimals two doubles are written as (their shortest text), with the sign
 * of the dividend, as PostgreSQL's numeric mod() computes it (its dialect): `7 mod 0.1` is 0, where the
 * doubles' fmod gives 0.0999...; NULL for a zero divisor, as SQLite's mod() gives.
 */
export function decimalRemainder(a: number, b: number): number | null {
  if (b === 0) return null;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a % b;
  const x = decimalOf(a);
  const y = decimalOf(b);
  const scale = Math.max(x.scale, y.scale);
  const r = (x.digits * 10n ** BigInt(scale - x.scale)) % (y.digits * 10n ** BigInt(scale - y.scale));
  return Number(`${r}e-${scale}`);
}

/** true for the name of a function registerSqliteFunctions registers (all of them, and only they, start with `odata_`). */
export const isServiceFunction = (name: string): boolean => name.startsWith('odata_');

/** Registers the dialect's functions on a connection. */
export function registerSqliteFunctions(raw: BetterSqlite3.Database): void {
  const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
  raw.function('odata_tolower', { deterministic: true }, (v: unknown) => text(v)?.toLowerCase() ?? null);
  raw.function('odata_toupper', { deterministic: true }, (v: unknown) => text(v)?.toUpperCase() ?? null);
  raw.function('odata_matches', { deterministic: true }, (v: unknown, pattern: unknown) => {
    const s = text(v);
    const r = text(pattern) === null ? null : regex(String(pattern));
    return s === null || r === null ? null : r.test(s) ? 1 : 0;
  });
  raw.function('odata_remainder', { deterministic: true }, (a: unknown, b: unknown) => (a === null || b === null ? null : decimalRemainder(Number(a), Number(b))));
  // Limits the database meets while a statement runs (an expanded collection past its cap) end it with a 400.
  raw.function('odata_raise_limit', { deterministic: false }, (message: unknown) => {
    throw new QueryLimitError(String(message), '$expand');
  });
  // The entity JSON the SQLite dialect writes falls back to these for values its SQL does not cover.
  raw.function('odata_etag', { deterministic: true }, (version: unknown) => formatEtag(version));
  // mode 0: a Decimal's JSON number, 1: a Double's (non-finite as OData's strings), 2: the text String() gives (IEEE754Compatible).
  raw.function('odata_json_number', { deterministic: true }, (value: unknown, mode: unknown) => {
    if (mode === 2) return value === null ? null : String(value);
    return typeof value === 'number' && mode === 1 && !Number.isFinite(value) ? JSON.stringify(nonFiniteDouble(value)) : JSON.stringify(value);
  });
}
