import { decodeODataName, encodeODataName, isSimpleIdentifier } from '../../../src/edm/encode-name.js';

describe('encodeODataName', () => {
  test.each([
    [' ', '_x0020_'],
    ['Prod. Order', 'Prod_x002E__x0020_Order'],
    ['Not Started', 'Not_x0020_Started'],
    ['Pending Approval', 'Pending_x0020_Approval'],
    ['Positive Adjmt.', 'Positive_x0020_Adjmt_x002E_'],
    ['Portal-to-BC', 'Portal_x002D_to_x002D_BC'],
    ['[x]', '_x005B_x_x005D_'],
    ["O'Neil", 'O_x0027_Neil'],
    ['1st', '_x0031_st'],
    ['Item', 'Item'],
    ['Größe', 'Größe'],
    ['snake_case', 'snake_case'],
    ['_leading', '_leading'],
  ])('%j → %j', (name, encoded) => {
    expect(encodeODataName(name)).toBe(encoded);
  });

  test('escapes an underscore that would otherwise start an escape sequence', () => {
    expect(encodeODataName('_x0020_')).toBe('_x005F_x0020_');
    expect(encodeODataName('a_x0041_b')).toBe('a_x005F_x0041_b');
    expect(encodeODataName('a_X004a_')).toBe('a_x005F_X004a_');
    // Not an escape: too few hex digits, or no closing underscore.
    expect(encodeODataName('a_x004_')).toBe('a_x004_');
    expect(encodeODataName('a_x0041')).toBe('a_x0041');
  });

  test('escapes each UTF-16 code unit of a character outside the BMP that is not a letter', () => {
    expect(encodeODataName('a😀')).toBe('a_xD83D__xDE00_');
  });

  test('gives valid SimpleIdentifiers for every non-empty name', () => {
    for (const name of [' ', '  ', '.', 'Prod. Order', '1', '_x0020_', 'a😀', '$top', 'x y.z-w']) {
      expect(isSimpleIdentifier(encodeODataName(name))).toBe(true);
    }
  });
});

describe('decodeODataName', () => {
  test('decodes escapes, upper- and lower-case hex', () => {
    expect(decodeODataName('Prod_x002E__x0020_Order')).toBe('Prod. Order');
    expect(decodeODataName('_x0020_')).toBe(' ');
    expect(decodeODataName('a_x002e_b')).toBe('a.b');
    expect(decodeODataName('Item')).toBe('Item');
  });

  test('is the inverse of encodeODataName', () => {
    for (const name of [' ', 'Prod. Order', '_x0020_', 'a_x0041_x0042_', '_x005F_', 'a😀b', '1st', 'x__y', '_', '__x1234__']) {
      expect(decodeODataName(encodeODataName(name))).toBe(name);
    }
  });
});

describe('isSimpleIdentifier', () => {
  test('follows CSDL TSimpleIdentifier', () => {
    expect(isSimpleIdentifier('engChangeNotice')).toBe(true);
    expect(isSimpleIdentifier('_x0020_')).toBe(true);
    expect(isSimpleIdentifier('1a')).toBe(false);
    expect(isSimpleIdentifier('a b')).toBe(false);
    expect(isSimpleIdentifier('')).toBe(false);
    expect(isSimpleIdentifier('a'.repeat(129))).toBe(false);
  });
});
