import { parseQueryOptions } from '../../../src/uri/parse-options.js';
import { MAX_CACHED_QUERY_LENGTH, QueryOptionsCache } from '../../../src/uri/query-options-cache.js';
import { DEFAULT_PARSE_LIMITS } from '../../../src/uri/parse-limits.js';
import { outcome } from './helpers.js';

const queries = [
  '',
  "$filter=contains(number,'12')&$select=id,number,status&$top=50",
  '$expand=engChangeNoticeComments($filter=lineNo%20gt%2010;$top=5),engChangeNoticeBOMLines&$top=20',
  "$filter=status eq @s&@s='Approved'&company=CRONUS",
  '$apply=groupby((status),aggregate($count as n))',
  // errors, in the parser's own words
  '$filter=status eq',
  '$top=1&$top=2',
  '$levels=2',
  "$filter=name eq 'a#b'",
];

describe('QueryOptionsCache', () => {
  test.each(queries)('gives what parseQueryOptions gives, the first, second and third time: %s', (q) => {
    const cache = new QueryOptionsCache();
    const expected = outcome((x) => parseQueryOptions(x), q);
    for (let i = 0; i < 3; i++) expect(outcome((x) => cache.parse(x), q)).toEqual(expected);
  });

  test('a query string is parsed twice, then its parse is shared', () => {
    const cache = new QueryOptionsCache();
    const q = '$filter=status eq 1&$top=3';
    const first = cache.parse(q);
    const second = cache.parse(q);
    expect(second).not.toBe(first);
    expect(cache.parse(q)).toBe(second);
    expect(cache.parse(q)).toBe(second);
  });

  test('an error is thrown every time and never kept', () => {
    const cache = new QueryOptionsCache();
    for (let i = 0; i < 3; i++) expect(() => cache.parse('$filter=status eq')).toThrow(/Syntax error/);
  });

  test('the parse limits given are the ones applied', () => {
    const cache = new QueryOptionsCache(256, { ...DEFAULT_PARSE_LIMITS, maxUrlLength: 20 });
    expect(() => cache.parse('$filter=status eq 1 and number eq 2')).toThrow();
    expect(cache.parse('$top=1').top).toBe(1);
  });

  test('long query strings are parsed every time', () => {
    const cache = new QueryOptionsCache();
    const q = `$filter=${Array.from({ length: 400 }, (_, i) => `status eq ${i}`).join(' or ')}`;
    expect(q.length).toBeGreaterThan(MAX_CACHED_QUERY_LENGTH);
    const parses = [cache.parse(q), cache.parse(q), cache.parse(q)];
    expect(parses[2]).not.toBe(parses[1]);
    expect(parses[2]).toEqual(parses[1]);
  });

  test('bounded: cleared when full, then strings are learned again', () => {
    const cache = new QueryOptionsCache(4);
    const q = '$top=1';
    cache.parse(q);
    const kept = cache.parse(q);
    expect(cache.parse(q)).toBe(kept);
    for (let i = 2; i < 6; i++) cache.parse(`$top=${i}`);
    const after = cache.parse(q);
    expect(after).not.toBe(kept);
    expect(after).toEqual(kept);
  });
});

test('a shared parse is frozen, down to its expressions', () => {
  const cache = new QueryOptionsCache();
  const q = "$filter=contains(number,'12') and status eq 'Open'&$orderby=number desc";
  cache.parse(q);
  const shared = cache.parse(q);
  expect(Object.isFrozen(shared)).toBe(true);
  expect(Object.isFrozen(shared.filter)).toBe(true);
  expect(Object.isFrozen(shared.orderby)).toBe(true);
  expect(Object.isFrozen(shared.orderby?.[0])).toBe(true);
  expect(() => {
    (shared as { top?: number }).top = 5;
  }).toThrow(TypeError);
});
