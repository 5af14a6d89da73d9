import { systemOptionName } from '../../../src/uri/parse-option-value.js';

test('system option names: any case, $ optional except for $skiptoken and $deltatoken', () => {
  expect(systemOptionName('$FILTER')).toBe('filter');
  expect(systemOptionName('OrderBy')).toBe('orderby');
  expect(systemOptionName('id')).toBe('id');
  expect(systemOptionName('$skiptoken')).toBe('skiptoken');
  expect(systemOptionName('skiptoken')).toBeUndefined();
  expect(systemOptionName('company')).toBeUndefined();
  expect(systemOptionName('$unknown')).toBeUndefined();
});
