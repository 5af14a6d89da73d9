import { parseODataUri, parseRelativeUri } from '../../../src/uri/parse-odata-uri.js';
import { syntaxError } from './helpers.js';

test('path and query together', () => {
  const uri = parseRelativeUri('Categories(1)/Products?$top=2&$orderby=Name');
  expect(uri.path.segments.map((s) => s.kind)).toEqual(['identifier', 'identifier']);
  expect(uri.query.top).toBe(2);
  expect(parseRelativeUri('Customers?').query.custom.size).toBe(0);
});

test('$metadata and $batch take only $format and custom options; a fragment only after $metadata', () => {
  expect(parseRelativeUri('$metadata?$format=json&!special').query.format).toBe('json');
  expect(parseRelativeUri('$metadata#Customers(Address)').fragment).toBe('Customers(Address)');
  expect(syntaxError(() => parseRelativeUri('$batch?$top=1')).message).toMatch(/\$top is not allowed for \$batch/);
  expect(syntaxError(() => parseRelativeUri('Customers#x')).message).toMatch(/only allowed after \$metadata/);
});

test('$entity needs $id, and $select/$expand only after a type cast', () => {
  expect(parseRelativeUri('$entity?$id=urn:some:id').query.id).toBe('urn:some:id');
  expect(parseRelativeUri('$entity/Model.Customer?id=x&$select=Name').query.select).toHaveLength(1);
  expect(syntaxError(() => parseRelativeUri('$entity?$format=json')).message).toMatch(/\$entity needs \$id/);
  expect(syntaxError(() => parseRelativeUri('$entity?$id=x&$select=Name')).message).toMatch(/\$select is not allowed for \$entity/);
});

test('absolute URLs: the service root is split off', () => {
  const uri = parseODataUri('http://host/service/EmployeesByManager(ManagerID=@p1)?@p1=3');
  expect(uri.serviceRoot).toBe('http://host/service/');
  expect(uri.query.aliases.has('p1')).toBe(true);
  expect(parseODataUri('http://My.Org:80/').path.segments).toEqual([]);
});
