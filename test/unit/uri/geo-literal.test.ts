import { Lexer } from '../../../src/uri/lexer.js';
import { DEFAULT_PARSE_LIMITS, ParseBudget } from '../../../src/uri/parse-limits.js';
import { failedAt } from '../../../src/uri/literal-scanners.js';
import { geoShapeAt, scanFullGeo } from '../../../src/uri/geo-literal.js';
import { QueryLimitError } from '../../../src/errors/odata-error.js';

const scan = (text: string, maxDepth = 64): number | string => {
  const r = scanFullGeo(new Lexer(text, 'geo', new ParseBudget({ ...DEFAULT_PARSE_LIMITS, maxDepth })), 0);
  return r >= 0 ? r : `fail@${failedAt(r)}`;
};

test('every WKT shape of the ABNF, with 2 to 4 coordinates per position', () => {
  for (const text of [
    'SRID=0;Point(142.1 64.1 10.0 -3.14)',
    'SRID=4326;LineString(142.1 64.1,3.14 2.78)',
    'SRID=0;Polygon((1 1,1 1),(1 1,2 2,3 3,1 1))',
    'SRID=0;MultiPoint()',
    'SRID=0;MultiPoint((142.1 64.1),(1 2))',
    'SRID=0;MultiLineString((1 2,3 4),(5 6,7 8))',
    'SRID=0;MultiPolygon(((1 1,1 1),(1 1,2 2,3 3,1 1)))',
    'SRID=0;GeometryCollection(LineString(142.1 64.1,3.14 2.78),Point(1 2))',
  ]) {
    expect(scan(text)).toBe(text.length);
  }
});

test('malformed literals fail where they break', () => {
  expect(scan('SRID=0;Point(1)')).toBe('fail@14');
  expect(scan('SRID=123456;Point(1 2)')).toBe('fail@10');
  expect(scan('SRID=0;LineString(1 2)')).toBe('fail@21');
  expect(scan('Point(1 2)')).toBe('fail@0');
});

test('nested collections count against the depth limit', () => {
  const nested = `SRID=0;${'GeometryCollection('.repeat(10)}Point(1 2)${')'.repeat(10)}`;
  expect(scan(nested)).toBe(nested.length);
  expect(() => scan(nested, 5)).toThrow(QueryLimitError);
});

test('geoShapeAt prefers the longest keyword', () => {
  const lx = new Lexer('MultiPolygon(', 'geo', new ParseBudget(DEFAULT_PARSE_LIMITS));
  expect(geoShapeAt(lx, 0)).toBe('MultiPolygon');
});
