/**
 * Geography and geometry literals (ABNF §7: `geographyPoint` ... `geometryCollection`, the WKT subset
 * with an SRID prefix). The service has no spatial types, so literals are only checked for syntax and
 * kept as text; checking them still matters because a malformed literal must be a 400, not a 500 later.
 */
import { fail, scanNanInfinity, scanNumber, scanDigits } from './literal-scanners.js';
import type { Lexer } from './lexer.js';

/** The WKT shapes of ABNF `geoLiteral`, in the spelling the ABNF uses (matched case-insensitively). */
export const GEO_SHAPES = [
  'Point',
  'LineString',
  'Polygon',
  'MultiPoint',
  'MultiLineString',
  'MultiPolygon',
  'GeometryCollection',
] as const;

/** ABNF `fullCollectionLiteral` and friends: `SRID=<1-5 digits>;` followed by a `geoLiteral`. */
export function scanFullGeo(lx: Lexer, at: number): number {
  if (!lx.startsWithCi('SRID', at) || lx.charAt(at + 4) !== '=') return fail(at);
  const srid = scanDigits(lx, at + 5, 1, 5);
  if (srid < 0) return srid;
  if (lx.charAt(srid) !== ';') return fail(srid);
  return scanGeoLiteral(lx, srid + 1);
}

/** The shape keyword at `at` (e.g. 'MultiPoint'), or undefined. */
export function geoShapeAt(lx: Lexer, at: number): (typeof GEO_SHAPES)[number] | undefined {
  let best: (typeof GEO_SHAPES)[number] | undefined;
  for (const shape of GEO_SHAPES) {
    if (lx.startsWithCi(shape, at) && (best === undefined || shape.length > best.length)) best = shape;
  }
  return best;
}

/** ABNF `geoLiteral`: one shape; `GeometryCollection` nests and counts against the depth limit. */
export function scanGeoLiteral(lx: Lexer, at: number): number {
  const shape = geoShapeAt(lx, at);
  if (shape === undefined) return fail(at);
  const i = at + shape.length;
  switch (shape) {
    case 'Point':
      return scanPointData(lx, i);
    case 'LineString':
      return scanLineStringData(lx, i);
    case 'Polygon':
      return scanPolygonData(lx, i);
    case 'MultiPoint':
      return scanList(lx, i, true, scanPointData);
    case 'MultiLineString':
      return scanList(lx, i, true, scanLineStringData);
    case 'MultiPolygon':
      return scanList(lx, i, true, scanPolygonData);
    case 'GeometryCollection': {
      lx.enter(at);
      try {
        return scanList(lx, i, false, scanGeoLiteral);
      } finally {
        lx.leave();
      }
    }
  }
}

/** `OPEN [ item *( COMMA item ) ] CLOSE`; `optional` allows the empty list. */
function scanList(lx: Lexer, at: number, optional: boolean, item: (lx: Lexer, at: number) => number): number {
  if (lx.charAt(at) !== '(') return fail(at);
  let i = at + 1;
  if (optional && lx.charAt(i) === ')') return i + 1;
  for (;;) {
    i = item(lx, i);
    if (i < 0) return i;
    if (lx.charAt(i) === ')') return i + 1;
    if (lx.charAt(i) !== ',') return fail(i);
    i++;
  }
}

/** ABNF `pointData = OPEN positionLiteral CLOSE`. */
function scanPointData(lx: Lexer, at: number): number {
  if (lx.charAt(at) !== '(') return fail(at);
  const i = scanPosition(lx, at + 1);
  if (i < 0) return i;
  return lx.charAt(i) === ')' ? i + 1 : fail(i);
}

/** ABNF `lineStringData = OPEN positionLiteral 1*( COMMA positionLiteral ) CLOSE`. */
function scanLineStringData(lx: Lexer, at: number): number {
  const end = scanList(lx, at, false, scanPosition);
  if (end >= 0 && !lx.text.slice(at, end).includes(',')) return fail(end - 1);
  return end;
}

/** ABNF `polygonData = OPEN ringLiteral *( COMMA ringLiteral ) CLOSE`, a ring being a list of positions. */
function scanPolygonData(lx: Lexer, at: number): number {
  return scanList(lx, at, false, (l, i) => scanList(l, i, false, scanPosition));
}

/** ABNF `positionLiteral = doubleValue SP doubleValue [ SP doubleValue ] [ SP doubleValue ]`. */
function scanPosition(lx: Lexer, at: number): number {
  let i = scanDouble(lx, at);
  for (let n = 1; n < 4 && i >= 0; n++) {
    if (lx.charAt(i) !== ' ') return n === 1 ? fail(i) : i;
    i = scanDouble(lx, i + 1);
  }
  return i;
}

function scanDouble(lx: Lexer, at: number): number {
  const special = scanNanInfinity(lx, at);
  return special >= 0 ? special : scanNumber(lx, at);
}
