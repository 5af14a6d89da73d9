import {
  parseExpand,
  parseFilter,
  parseOrderBy,
  parseQueryOption,
  parseQueryOptions,
  parseSelect,
} from '../../../src/uri/parse-options.js';
import { DEFAULT_PARSE_LIMITS } from '../../../src/uri/parse-limits.js';
import { bare, bin, int, limitError, path, str, syntaxError } from './helpers.js';

describe('splitting and decoding (URL Conventions 4.01 §2.1)', () => {
  test('splits at raw & only, decodes names and values once', () => {
    const q = parseQueryOptions('$filter=Name%20eq%20%27a%26b%27&$top=2');
    expect(bare(q.filter)).toEqual(bin('eq', path('Name'), str('a&b')));
    expect(q.top).toBe(2);
  });

  test('%27 is a quote and %20 a space; a doubled quote stays one quote', () => {
    expect(bare(parseQueryOptions("$filter=Name%20eq%20%27O''Neil%27").filter)).toEqual(bin('eq', path('Name'), str("O'Neil")));
  });

  test('+ is not a space', () => {
    expect(bare(parseQueryOptions('$filter=a%20eq%20+1').filter)).toEqual(bin('eq', path('a'), int('1')));
    expect(parseQueryOptions('x=a+b').custom.get('x')).toBe('a+b');
  });

  test('a raw # is an error; %23 is fine', () => {
    expect(syntaxError(() => parseQueryOptions('$search=#1')).position).toBe(8);
    expect(parseQueryOptions('$search=%231').search).toBe('#1');
  });

  test('an empty query and empty pieces are no options', () => {
    expect(parseQueryOptions('')).toEqual({ aliases: new Map(), custom: new Map() });
    expect(parseQueryOptions('$top=1&&$skip=2&').skip).toBe(2);
  });
});

describe('system options', () => {
  test('names are case-insensitive and the $ is optional (4.01 §5.1)', () => {
    expect(parseQueryOptions('$TOP=1').top).toBe(1);
    expect(parseQueryOptions('OrderBy=Name').orderby?.length).toBe(1);
    expect(parseQueryOptions('filter=true').filter).toBeDefined();
  });

  test('$skiptoken and $deltatoken need the $; without it they are custom options', () => {
    expect(parseQueryOptions('skiptoken=x').custom.get('skiptoken')).toBe('x');
    expect(parseQueryOptions('$skiptoken=Start@Next:From?=Here!').skiptoken).toBe('Start@Next:From?=Here!');
  });

  test('unknown $-options and repeated options are errors', () => {
    expect(syntaxError(() => parseQueryOptions('$fliter=a')).message).toMatch(/unknown system query option '\$fliter'/);
    expect(syntaxError(() => parseQueryOptions('$top=1&top=2')).message).toMatch(/\$top is specified more than once/);
    expect(syntaxError(() => parseQueryOptions('$count')).message).toMatch(/needs '=' and a value/);
    expect(() => parseQueryOptions('$levels=2')).toThrow(/\$levels is not supported/);
  });

  test('$top and $skip are non-negative integers, $count a boolean, $index may be negative', () => {
    expect(syntaxError(() => parseQueryOptions('$top=-1')).position).toBe(0);
    expect(syntaxError(() => parseQueryOptions('$skip=1.5')).message).toMatch(/expected the end of the option but found '\.5'/);
    expect(parseQueryOptions('$count=TRUE').count).toBe(true);
    expect(parseQueryOptions('$index=-42').index).toBe(-42);
    expect(syntaxError(() => parseQueryOptions('$top=99999999999999999999')).message).toMatch(/too large/);
  });

  test('$format, $schemaversion, $search, $compute, $id are kept as text after a syntax check; $apply is parsed', () => {
    const q = parseQueryOptions('$format=application/json;odata.metadata=minimal&$schemaversion=1.2&$search=blue%20OR%20green&$compute=a%20add%201%20as%20b&$apply=groupby((a))');
    expect(q.format).toBe('application/json;odata.metadata=minimal');
    expect(q.schemaversion).toBe('1.2');
    expect(q.search).toBe('blue OR green');
    expect(q.compute).toBe('a add 1 as b');
    expect(q.apply?.map((t) => t.kind)).toEqual(['groupby']);
    expect(syntaxError(() => parseQueryOptions('$format=html')).message).toMatch(/media type/);
    expect(syntaxError(() => parseQueryOptions('$compute=a add 1')).message).toMatch(/' as '/);
  });
});

describe('aliases and custom options', () => {
  test('@alias=value is parsed as an expression; custom options are kept decoded', () => {
    const q = parseQueryOptions('$filter=Title%20eq%20@t&@t=%27Oz%27&company=CRONUS%20AG&!flag');
    expect(bare(q.filter)).toEqual(bin('eq', path('Title'), { kind: 'alias', name: 't' }));
    expect(bare(q.aliases.get('t'))).toEqual(str('Oz'));
    expect(q.custom.get('company')).toBe('CRONUS AG');
    expect(q.custom.get('!flag')).toBe('');
  });

  test('an alias defined twice is an error', () => {
    expect(syntaxError(() => parseQueryOptions('@a=1&@a=2')).message).toMatch(/defined more than once/);
  });
});

describe('nested $expand options', () => {
  test("$expand=x($filter=a eq 'b';$top=1): a string literal may end right before ;", () => {
    const [item] = parseQueryOptions("$expand=x($filter=a%20eq%20'b';$top=1)").expand ?? [];
    expect(bare(item)).toEqual({
      path: [{ kind: 'name', name: 'x' }],
      star: false,
      ref: false,
      count: false,
      options: { filter: bin('eq', path('a'), str('b')), top: 1 },
    });
  });

  test('options nest recursively and without $', () => {
    const [item] = parseExpand('Items(expand=Product($select=Name,Price;$levels=max);$orderby=Qty desc)');
    expect(item?.options.orderby?.[0]?.direction).toBe('desc');
    const [inner] = item?.options.expand ?? [];
    expect(inner?.options.levels).toBe('max');
    expect(inner?.options.select?.length).toBe(2);
  });
});

describe('per-option entry points', () => {
  test('parseFilter, parseOrderBy, parseSelect, parseExpand take decoded text', () => {
    expect(bare(parseFilter('a eq 1'))).toEqual(bin('eq', path('a'), int('1')));
    expect(bare(parseOrderBy('a desc,b'))).toEqual([
      { expr: path('a'), direction: 'desc' },
      { expr: path('b'), direction: 'asc' },
    ]);
    expect(parseSelect('*,a/b').map((i) => i.kind)).toEqual(['star', 'path']);
    expect(parseExpand('a/$ref')[0]?.ref).toBe(true);
  });

  test('parseQueryOption refuses a raw &', () => {
    expect(syntaxError(() => parseQueryOption('$skiptoken=Not&this')).position).toBe(14);
  });
});

describe('hostile queries', () => {
  test('a 1 MB query: 414 before any parsing', () => {
    const e = limitError(() => parseQueryOptions(`$filter=${'a'.repeat(1 << 20)}`));
    expect(e.status).toBe(414);
  });

  test('10,000 nested parentheses: 400', () => {
    expect(limitError(() => parseQueryOptions(`$filter=${'('.repeat(10000)}a${')'.repeat(10000)}`)).status).toBe(400);
  });

  test('a 5,000-term and-chain: refused (414 with the default length limit, 400 by node count without it)', () => {
    const chain = Array.from({ length: 5000 }, (_, i) => `a${i}%20eq%20${i}`).join('%20and%20');
    expect(limitError(() => parseQueryOptions(`$filter=${chain}`)).status).toBe(414);
    const e = limitError(() => parseQueryOptions(`$filter=${chain}`, { ...DEFAULT_PARSE_LIMITS, maxUrlLength: 1e6 }));
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/syntax nodes/);
  });

  test('the node budget is shared by all options of one query', () => {
    const limits = { ...DEFAULT_PARSE_LIMITS, maxNodes: 10 };
    expect(() => parseQueryOptions('$filter=a%20eq%201&$orderby=b', limits)).not.toThrow();
    expect(limitError(() => parseQueryOptions('$filter=a%20eq%201%20and%20b%20eq%202&$orderby=c,d,e', limits)).status).toBe(400);
  });

  test('nested $expand deeper than the limit: 400', () => {
    const deep = `$expand=${'a($expand='.repeat(100)}a${')'.repeat(100)}`;
    expect(limitError(() => parseQueryOptions(deep)).status).toBe(400);
  });
});
