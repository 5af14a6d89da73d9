import { parsePrimitiveLiteral, numberLiteral } from '../../../src/uri/parse-literal.js';
import { syntaxError } from './helpers.js';

const lit = (text: string): unknown => parsePrimitiveLiteral(text);

describe('primitive literals (ABNF primitiveLiteral)', () => {
  test('null is case-sensitive; booleans are not', () => {
    expect(lit('null')).toEqual({ kind: 'null' });
    expect(lit('TRUE')).toEqual({ kind: 'boolean', value: true });
    expect(lit('false')).toEqual({ kind: 'boolean', value: false });
    expect(() => lit('NULL')).toThrow();
  });

  test('numbers keep their text: integer, decimal, double with exponent, INF/-INF/NaN', () => {
    expect(lit('42')).toEqual({ kind: 'integer', value: '42' });
    expect(lit('+42')).toEqual({ kind: 'integer', value: '42' });
    expect(lit('-1.50')).toEqual({ kind: 'decimal', value: '-1.50' });
    expect(lit('1.5e-3')).toEqual({ kind: 'double', value: '1.5e-3' });
    expect(lit('2E10')).toEqual({ kind: 'double', value: '2E10' });
    expect(lit('INF')).toEqual({ kind: 'double', value: 'INF' });
    expect(lit('-INF')).toEqual({ kind: 'double', value: '-INF' });
    expect(lit('NaN')).toEqual({ kind: 'double', value: 'NaN' });
    expect(lit('12345678901234567890')).toEqual({ kind: 'decimal', value: '12345678901234567890' });
  });

  test('strings unescape doubled quotes', () => {
    expect(lit("'O''Neil'")).toEqual({ kind: 'string', value: "O'Neil" });
    expect(lit("''")).toEqual({ kind: 'string', value: '' });
  });

  test('GUIDs are lower-cased, also when they start with a letter', () => {
    expect(lit('ABCDEF01-89AB-CDEF-0123-456789ABCDEF')).toEqual({ kind: 'guid', value: 'abcdef01-89ab-cdef-0123-456789abcdef' });
    expect(syntaxError(() => lit('01234567-89ab-cdef-456789abcdef')).position).toBe(23);
  });

  test('dates, date-times with offsets (leap second, fractions, negative years) and times of day', () => {
    expect(lit('2012-09-03')).toEqual({ kind: 'date', value: '2012-09-03' });
    expect(lit('-10000-04-01')).toEqual({ kind: 'date', value: '-10000-04-01' });
    expect(lit('1972-06-30T23:59:60Z')).toEqual({ kind: 'dateTimeOffset', value: '1972-06-30T23:59:60Z' });
    expect(lit('2012-08-31T18:19:22.1+02:00')).toEqual({ kind: 'dateTimeOffset', value: '2012-08-31T18:19:22.1+02:00' });
    expect(lit('11:22:33.4444444')).toEqual({ kind: 'timeOfDay', value: '11:22:33.4444444' });
  });

  test('month, day and hour ranges are checked as the ABNF spells them', () => {
    expect(syntaxError(() => lit('2012-13-01')).message).toMatch(/'2012-13-01' is not an Edm\.Date/);
    expect(syntaxError(() => lit('2012-02-32')).position).toBe(9);
    expect(syntaxError(() => lit('2011-12-31T24:00Z')).position).toBe(12);
    expect(syntaxError(() => lit('24:00:00')).position).toBe(1);
  });

  test("duration'...', binary'...', enums and spatial literals", () => {
    expect(lit("duration'P6DT23H59M59.9999S'")).toEqual({ kind: 'duration', value: 'P6DT23H59M59.9999S' });
    expect(lit("binary'Zm9vYg=='")).toEqual({ kind: 'binary', value: 'Zm9vYg==' });
    expect(lit("Sales.Pattern'Solid,Yellow,+42'")).toEqual({ kind: 'enum', typeName: 'Sales.Pattern', members: ['Solid', 'Yellow', '+42'] });
    expect(lit("geography'SRID=0;Point(142.1 64.1)'")).toEqual({ kind: 'geo', text: "geography'SRID=0;Point(142.1 64.1)'" });
    expect(syntaxError(() => lit("duration'P1Y'")).message).toMatch(/day-time duration/);
    expect(syntaxError(() => lit("X'1a2B'")).message).toMatch(/'X' is not a literal prefix/);
  });

  test('a literal glued to a name is an error', () => {
    expect(syntaxError(() => lit('2x4')).message).toMatch(/unexpected 'x' directly after the literal 2/);
    expect(syntaxError(() => lit("'O'Neil'")).position).toBe(3);
  });

  test('numberLiteral classifies number text', () => {
    expect(numberLiteral('-0.314e1')).toEqual({ kind: 'double', value: '-0.314e1' });
  });
});
