import { decimalDigits, decimalFacetProblem, isCalendarDate, normaliseDateTimeOffset, storedToJson } from '../../../src/edm/values.js';
import type { PropertyType } from '../../../src/edm/model.js';
import { startTestService } from '../../helpers/test-service.js';

const DOUBLE = { kind: 'primitive', name: 'Edm.Double' } as PropertyType;
const DECIMAL = { kind: 'primitive', name: 'Edm.Decimal' } as PropertyType;
const plain = { ieee754Compatible: false };

test('doubles JSON has no number for are OData JSON strings INF, -INF and NaN (JSON Format §7.1)', () => {
  expect(storedToJson(Infinity, DOUBLE, plain)).toBe('INF');
  expect(storedToJson(-Infinity, DOUBLE, plain)).toBe('-INF');
  expect(storedToJson(NaN, DOUBLE, plain)).toBe('NaN');
  expect(storedToJson(-0.5, DOUBLE, plain)).toBe(-0.5);
  expect(storedToJson(null, DOUBLE, plain)).toBeNull();
});

test('decimals are numbers, or strings with IEEE754Compatible=true', async () => {
  expect(storedToJson(12.34, DECIMAL, plain)).toBe(12.34);
  expect(storedToJson(12.34, DECIMAL, { ieee754Compatible: true })).toBe('12.34');
});

test('the database spells them the same when it writes the JSON', async () => {
  const t = await startTestService();
  try {
    const spell = t.service.db.raw.prepare('SELECT odata_json_number(?, ?)').pluck();
    expect(spell.get(Infinity, 1)).toBe('"INF"');
    expect(spell.get(-Infinity, 1)).toBe('"-INF"');
    expect(spell.get(2.5, 1)).toBe('2.5');
    expect(spell.get(181004266.441296, 0)).toBe('181004266.441296');
  } finally {
    await t.close();
  }
});

describe('Decimal Precision and Scale (CSDL §7.2.3, §7.2.4)', () => {
  test.each([
    [1.234, { integer: 1, fraction: 3 }],
    ['1.230', { integer: 1, fraction: 2 }],
    [0.05, { integer: 0, fraction: 2 }],
    [1200, { integer: 4, fraction: 0 }],
    ['-007.50', { integer: 1, fraction: 1 }],
    [1e-7, { integer: 0, fraction: 7 }],
    ['1.5e+21', { integer: 22, fraction: 0 }],
    [0, { integer: 0, fraction: 0 }],
  ])('decimalDigits(%j)', (value, digits) => {
    expect(decimalDigits(value)).toEqual(digits);
  });

  test('non-numbers and non-finite numbers have no digits', () => {
    expect(decimalDigits('abc')).toBeUndefined();
    expect(decimalDigits('.')).toBeUndefined();
    expect(decimalDigits(Infinity)).toBeUndefined();
  });

  test('Scale 2 refuses 1.234 and takes 1.23; Precision 5 Scale 2 refuses 1234.5', () => {
    expect(decimalFacetProblem(1.234, undefined, 2)).toBe('has 3 digits after the decimal point, but at most 2 are allowed (Scale 2)');
    expect(decimalFacetProblem(1.23, undefined, 2)).toBeUndefined();
    expect(decimalFacetProblem('1.2300', 5, 2)).toBeUndefined();
    expect(decimalFacetProblem(1234.5, 5, 2)).toBe('has 4 digits before the decimal point, but at most 3 are allowed (Precision 5, Scale 2)');
    expect(decimalFacetProblem(123456, 5, undefined)).toBe('has 6 digits before the decimal point, but at most 5 are allowed (Precision 5)');
    expect(decimalFacetProblem(1.234, undefined, undefined)).toBeUndefined();
  });
});

test('calendar dates: days a month has, leap years by the Gregorian rule', () => {
  for (const ok of ['2024-02-29', '2000-02-29', '2023-01-31', '2023-04-30', '2023-12-31', '2023-02-28T23:59:59Z']) expect(isCalendarDate(ok)).toBe(true);
  for (const bad of ['2023-02-29', '1900-02-29', '2023-02-30', '2023-04-31', '2023-06-31', '2023-13-01', '2023-00-10', '2023-01-00', 'x']) expect(isCalendarDate(bad)).toBe(false);
  expect(() => normaliseDateTimeOffset('2023-02-30T10:00:00Z')).toThrow(RangeError);
});
