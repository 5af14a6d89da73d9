import { parseResourcePath } from '../../../src/uri/parse-path.js';
import { syntaxError } from './helpers.js';

test('$entity and $all take at most a type cast; $crossjoin only /$query', () => {
  expect(parseResourcePath('$entity/Model.Customer').segments).toHaveLength(2);
  expect(syntaxError(() => parseResourcePath('$entity/Customers')).message).toMatch(/\$entity may only be followed by a qualified type name/);
  expect(syntaxError(() => parseResourcePath('$crossjoin(A,B)/A')).message).toMatch(/followed by \/\$query/);
});

test('$value, $query and $batch end the path; a literal segment cannot start it', () => {
  expect(syntaxError(() => parseResourcePath('P(1)/Name/$value/x')).message).toMatch(/nothing may follow \$value/);
  expect(syntaxError(() => parseResourcePath('P/$query/x')).message).toMatch(/nothing may follow \$query/);
  expect(syntaxError(() => parseResourcePath('$batch/x')).message).toMatch(/nothing may follow \$batch/);
  expect(syntaxError(() => parseResourcePath('1/P')).message).toMatch(/entity set, singleton or function import name/);
  expect(syntaxError(() => parseResourcePath('$count')).message).toMatch(/cannot start with \$count/);
});
