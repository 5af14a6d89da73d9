import { storedToJson } from '../../../src/edm/values.js';
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
