import { parseQueryOptions } from '../../../src/uri/parse-options.js';
import { syntaxError } from './helpers.js';

test('items are expression, as, name; the text is kept', () => {
  expect(parseQueryOptions('$compute=Amount%20mul%20Product/TaxRate%20as%20Tax,day(Time/Date)%20as%20WeekDay').compute).toBe(
    'Amount mul Product/TaxRate as Tax,day(Time/Date) as WeekDay',
  );
  expect(parseQueryOptions('$expand=Sales($compute=a%20add%201%20as%20b)').expand?.[0]?.options.compute).toBe('a add 1 as b');
});

test('the alias name is required', () => {
  expect(syntaxError(() => parseQueryOptions('$compute=a%20as%20')).message).toMatch(/name of the computed property/);
});
