import { NESTED_OPTIONS } from '../../../src/uri/parse-nested-options.js';

test('the option sets follow ABNF expandCountOption, expandRefOption, expandOption and selectOption', () => {
  expect([...NESTED_OPTIONS.count]).toEqual(['filter', 'search']);
  expect([...NESTED_OPTIONS.ref]).toEqual(['filter', 'search', 'orderby', 'skip', 'top', 'count']);
  expect(NESTED_OPTIONS.expand.has('levels')).toBe(true);
  expect(NESTED_OPTIONS.expand.has('alias')).toBe(true);
  expect(NESTED_OPTIONS.select.has('expand')).toBe(false);
  expect([...NESTED_OPTIONS.star]).toEqual(['levels']);
});
