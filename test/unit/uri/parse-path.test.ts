import { parseResourcePath } from '../../../src/uri/parse-path.js';
import { bare, limitError, syntaxError } from './helpers.js';

const segs = (raw: string): unknown => bare(parseResourcePath(raw).segments);
const guid = '7c1a5e3b-0000-4000-8000-000000000001';

describe('service paths', () => {
  test('company-scoped navigation with bare and named GUID keys', () => {
    expect(segs(`/companies(${guid})/engChangeNotices(id=2f0c0a6e-1b2c-4d5e-8f90-0123456789ab)/engChangeNoticeComments`)).toEqual([
      { kind: 'identifier', name: 'companies', key: { kind: 'single', value: { kind: 'guid', value: guid } } },
      {
        kind: 'identifier',
        name: 'engChangeNotices',
        key: { kind: 'named', pairs: [{ name: 'id', value: { kind: 'guid', value: '2f0c0a6e-1b2c-4d5e-8f90-0123456789ab' } }] },
      },
      { kind: 'identifier', name: 'engChangeNoticeComments' },
    ]);
  });

  test('a bound action is a qualified segment', () => {
    expect(segs(`/engChangeNotices(${guid})/Microsoft.NAV.createEngChangeOrder`)).toEqual([
      { kind: 'identifier', name: 'engChangeNotices', key: { kind: 'single', value: { kind: 'guid', value: guid } } },
      { kind: 'qualified', name: 'Microsoft.NAV.createEngChangeOrder' },
    ]);
  });

  test('navigation to a property, $count, $metadata and the service document', () => {
    expect(segs(`/engChangeOrderTasks(${guid})/engChangeOrder/changeDescription`)).toHaveLength(3);
    expect(segs('/engChangeNotices/$count')).toEqual([{ kind: 'identifier', name: 'engChangeNotices' }, { kind: 'count' }]);
    expect(segs('/$metadata')).toEqual([{ kind: 'metadata' }]);
    expect(segs('/')).toEqual([]);
    expect(segs('')).toEqual([]);
  });

  test('spans count in the decoded path, leading / included', () => {
    const [, second] = parseResourcePath('/a(1)/b').segments;
    expect(second?.span).toEqual({ start: 6, end: 7 });
  });
});

describe('keys (ABNF keyPredicate)', () => {
  test('string, integer, composite and alias keys', () => {
    expect(segs("X('ABC')")).toEqual([{ kind: 'identifier', name: 'X', key: { kind: 'single', value: { kind: 'string', value: 'ABC' } } }]);
    expect(segs('X(1)')).toEqual([{ kind: 'identifier', name: 'X', key: { kind: 'single', value: { kind: 'integer', value: '1' } } }]);
    expect(segs("X(a=1,b='x')")).toEqual([
      {
        kind: 'identifier',
        name: 'X',
        key: { kind: 'named', pairs: [{ name: 'a', value: { kind: 'integer', value: '1' } }, { name: 'b', value: { kind: 'string', value: 'x' } }] },
      },
    ]);
    expect(segs('X(@k)')).toEqual([{ kind: 'identifier', name: 'X', key: { kind: 'single', value: { kind: 'aliasRef', name: 'k' } } }]);
  });

  test('percent-decoding happens per segment after splitting: %2F stays in the key, %27 is a quote', () => {
    expect(segs("X('a%2Fb')")).toEqual([{ kind: 'identifier', name: 'X', key: { kind: 'single', value: { kind: 'string', value: 'a/b' } } }]);
    expect(segs('X%28%27O%27%27Neil%27%29')).toEqual([
      { kind: 'identifier', name: 'X', key: { kind: 'single', value: { kind: 'string', value: "O'Neil" } } },
    ]);
  });

  test('malformed keys are errors with a position and a hint', () => {
    expect(syntaxError(() => parseResourcePath("X('a/b')")).message).toMatch(/no closing quote.*%2F/);
    expect(syntaxError(() => parseResourcePath('X(ID=wrong)')).position).toBe(5);
    expect(syntaxError(() => parseResourcePath('X(a=1;b=2)')).message).toMatch(/expected ',' or '\)' but found ';'/);
    expect(syntaxError(() => parseResourcePath("X('O%27Neil')")).message).toMatch(/two quotes/);
  });
});

describe('operations and special segments', () => {
  test('function imports: () and (params)(key)', () => {
    expect(segs('TheBestProduct()')).toEqual([{ kind: 'identifier', name: 'TheBestProduct', params: [] }]);
    expect(segs('F(p=2)(3)')).toEqual([
      {
        kind: 'identifier',
        name: 'F',
        params: [{ name: 'p', value: { kind: 'literal', literal: { kind: 'integer', value: '2' } } }],
        key: { kind: 'single', value: { kind: 'integer', value: '3' } },
      },
    ]);
  });

  test('bound functions with parameters, casts with a key', () => {
    expect(segs("C(1)/Model.ByColor(color='red')")).toEqual([
      { kind: 'identifier', name: 'C', key: { kind: 'single', value: { kind: 'integer', value: '1' } } },
      { kind: 'qualified', name: 'Model.ByColor', params: [{ name: 'color', value: { kind: 'literal', literal: { kind: 'string', value: 'red' } } }] },
    ]);
    expect(segs('P/Model.Best(1)')).toEqual([
      { kind: 'identifier', name: 'P' },
      { kind: 'qualified', name: 'Model.Best', key: { kind: 'single', value: { kind: 'integer', value: '1' } } },
    ]);
  });

  test('$filter, $each, $query, $ref, $value, $all, $crossjoin', () => {
    expect(parseResourcePath('P/$filter(Age gt 3)/$each').segments.map((s) => s.kind)).toEqual(['identifier', 'filter', 'each']);
    expect(parseResourcePath('P(1)/$ref').segments.map((s) => s.kind)).toEqual(['identifier', 'ref']);
    expect(parseResourcePath('$all/Model.Customer').segments.map((s) => s.kind)).toEqual(['all', 'qualified']);
    expect(segs('$crossjoin(A,B)/$query')).toEqual([{ kind: 'crossjoin', entitySets: ['A', 'B'] }, { kind: 'query' }]);
  });

  test('key-as-segment values and ordinal indexes are literal segments for the binder', () => {
    expect(segs("People/O'Neil")).toEqual([{ kind: 'identifier', name: 'People' }, { kind: 'literalSegment', text: "O'Neil" }]);
    expect(segs('A(1)/B/-1')).toContainEqual({ kind: 'literalSegment', text: '-1' });
  });

  test('$-segments are case-sensitive and must be known', () => {
    expect(syntaxError(() => parseResourcePath('P/$Count')).message).toMatch(/unknown segment '\$Count'/);
  });
});

describe('order rules', () => {
  test('$count, $ref and $value end the path; $metadata stands alone; no qualified first segment', () => {
    expect(syntaxError(() => parseResourcePath('P/$count/x')).message).toMatch(/nothing may follow \$count/);
    expect(syntaxError(() => parseResourcePath('P/$ref/$count')).message).toMatch(/nothing may follow \$ref/);
    expect(syntaxError(() => parseResourcePath('$metadata/x')).message).toMatch(/nothing may follow \$metadata/);
    expect(syntaxError(() => parseResourcePath('Model.Rejection')).position).toBe(0);
    expect(syntaxError(() => parseResourcePath('P/$metadata')).message).toMatch(/only allowed as the first segment/);
    expect(syntaxError(() => parseResourcePath('.P')).position).toBe(0);
    expect(syntaxError(() => parseResourcePath('a//b')).message).toMatch(/empty path segment/);
  });
});

describe('limits', () => {
  test('a 1 MB path: 414', () => {
    expect(limitError(() => parseResourcePath(`/${'a'.repeat(1 << 20)}`)).status).toBe(414);
  });

  test('10,000 segments: 400 on the node count', () => {
    expect(limitError(() => parseResourcePath(`/${Array(10000).fill('a').join('/')}`)).status).toBe(400);
  });
});
