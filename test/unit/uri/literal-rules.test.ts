import { isLiteralRule, parseLiteralAs } from '../../../src/uri/literal-rules.js';
import { syntaxError } from './helpers.js';

describe('named literal rules (ABNF §7)', () => {
  test('payload forms allow no percent-encoding and lower-case booleans only', () => {
    expect(parseLiteralAs('timeOfDayValue', '11:22')).toEqual({ kind: 'timeOfDay', value: '11:22' });
    expect(syntaxError(() => parseLiteralAs('timeOfDayValue', '11%3A22')).position).toBe(2);
    expect(syntaxError(() => parseLiteralAs('booleanValue', 'tRUe')).position).toBe(0);
    expect(parseLiteralAs('boolean', 'tRUe')).toEqual({ kind: 'boolean', value: true });
  });

  test('integer rules count digits; decimal rules take exponents and INF', () => {
    expect(parseLiteralAs('sbyteValue', '-128')).toEqual({ kind: 'integer', value: '-128' });
    expect(() => parseLiteralAs('byteValue', '1234')).toThrow();
    expect(parseLiteralAs('decimalValue', '-1.234567e3')).toEqual({ kind: 'double', value: '-1.234567e3' });
    expect(syntaxError(() => parseLiteralAs('decimalValue', '42.')).position).toBe(3);
  });

  test('durations: no sign +, no years or months', () => {
    expect(parseLiteralAs('durationValue', '-P6DT23H59M59.9999S')).toEqual({ kind: 'duration', value: '-P6DT23H59M59.9999S' });
    expect(() => parseLiteralAs('durationValue', 'P1Y')).toThrow();
    expect(parseLiteralAs('durationLiteral', "'P1D'")).toEqual({ kind: 'duration', value: 'P1D' });
  });

  test('enum literals with and without a type, enum values, binaries', () => {
    expect(parseLiteralAs('enumLiteral', "'Solid,Yellow,-42'")).toEqual({ kind: 'enum', typeName: '', members: ['Solid', 'Yellow', '-42'] });
    expect(syntaxError(() => parseLiteralAs('enumValue', 'Solid%2CYellow')).position).toBe(5);
    expect(parseLiteralAs('binaryValue', 'Zm8')).toEqual({ kind: 'binary', value: 'Zm8' });
    expect(syntaxError(() => parseLiteralAs('binaryLiteral', "binary'Zm8'x")).position).toBe(11);
  });

  test('spatial rules check prefix and shape', () => {
    expect(parseLiteralAs('geometryMultiPoint', "geometry'SRID=0;MultiPoint()'").kind).toBe('geo');
    expect(() => parseLiteralAs('geographyPoint', "geometry'SRID=0;Point(1 2)'")).toThrow();
  });

  test('primitiveValue accepts any payload form that covers the whole text', () => {
    expect(parseLiteralAs('primitiveValue', '0123456789')).toEqual({ kind: 'integer', value: '0123456789' });
    expect(parseLiteralAs('primitiveValue', 'Yellow').kind).toBe('enum');
    expect(parseLiteralAs('primitiveValue', 'SRID=0;Point(142.1 64.1)').kind).toBe('geo');
    expect(syntaxError(() => parseLiteralAs('primitiveValue', 'a1234567 89ab')).position).toBe(8);
  });

  test('isLiteralRule knows the rule names, any case', () => {
    expect(isLiteralRule('DateTimeOffsetValue')).toBe(true);
    expect(isLiteralRule('commonExpr')).toBe(false);
  });
});
