import { isCalendarDate, normaliseDateTimeOffset, storedToJson } from '../../../src/edm/values.js';
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

test('decimals are numbers, or strings with IEEE754Compatible=true', () => {
  expect(storedToJson(12.34, DECIMAL, plain)).toBe(12.34);
  expect(storedToJson(12.34, DECIMAL, { ieee754Compatible: true })).toBe('12.34');
});

test('the database spells them the same when it writes the JSON', () => {
  const t = startTestService();
  try {
    const spell = t.service.db.raw.prepare('SELECT odata_json_number(?, ?)').pluck();
    expect(spell.get(Infinity, 1)).toBe('"INF"');
    expect(spell.get(-Infinity, 1)).toBe('"-INF"');
    expect(spell.get(2.5, 1)).toBe('2.5');
    expect(spell.get(181004266.441296, 0)).toBe('181004266.441296');
  } finally {
    t.close();
  }
});

test('calendar dates: days a month has, leap years by the Gregorian rule', () => {
  for (const ok of ['2024-02-29', '2000-02-29', '2023-01-31', '2023-04-30', '2023-12-31', '2023-02-28T23:59:59Z']) expect(isCalendarDate(ok)).toBe(true);
  for (const bad of ['2023-02-29', '1900-02-29', '2023-02-30', '2023-04-31', '2023-06-31', '2023-13-01', '2023-00-10', '2023-01-00', 'x']) expect(isCalendarDate(bad)).toBe(false);
  expect(() => normaliseDateTimeOffset('2023-02-30T10:00:00Z')).toThrow(RangeError);
});
