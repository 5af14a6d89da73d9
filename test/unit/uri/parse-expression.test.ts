import { parseExpression } from '../../../src/uri/parse-expression.js';
import { DEFAULT_PARSE_LIMITS } from '../../../src/uri/parse-limits.js';
import { as, bare, bin, int, limitError, path, str, syntaxError } from './helpers.js';

const expr = (text: string): unknown => bare(parseExpression(text));

describe('precedence (URL Conventions 4.01 §5.1.1.16)', () => {
  test('multiplicative binds tighter than additive: a mul 2 add 3 = (a mul 2) add 3', () => {
    expect(expr('a mul 2 add 3')).toEqual(bin('add', bin('mul', path('a'), int('2')), int('3')));
  });

  test('additive operators associate to the left: a sub 1 sub 2 = (a sub 1) sub 2', () => {
    expect(expr('a sub 1 sub 2')).toEqual(bin('sub', bin('sub', path('a'), int('1')), int('2')));
  });

  test('not is unary and binds tighter than eq and and: not a eq b and c = ((not a) eq b) and c', () => {
    expect(expr('not a eq b and c')).toEqual(bin('and', bin('eq', { kind: 'not', operand: path('a') }, path('b')), path('c')));
  });

  test('and binds tighter than or: a or b and c = a or (b and c)', () => {
    expect(expr('a or b and c')).toEqual(bin('or', path('a'), bin('and', path('b'), path('c'))));
  });

  test('a minus before a number is part of the literal: -1 sub 2 = (-1) sub 2', () => {
    expect(expr('-1 sub 2')).toEqual(bin('sub', int('-1'), int('2')));
  });

  test('a minus before a name is negation and binds tighter than add: -a add 1 = (-a) add 1', () => {
    expect(expr('-a add 1')).toEqual(bin('add', { kind: 'negate', operand: path('a') }, int('1')));
  });

  test('relational binds tighter than equality, arithmetic tighter than both', () => {
    expect(expr('a add 1 gt 2 eq true')).toEqual(
      bin('eq', bin('gt', bin('add', path('a'), int('1')), int('2')), { kind: 'literal', literal: { kind: 'boolean', value: true } }),
    );
  });

  test('in and has are primary operators: not a in (1) = not (a in (1))', () => {
    expect(expr('not a in (1)')).toEqual({ kind: 'not', operand: bin('in', path('a'), { kind: 'list', items: [int('1')] }) });
  });

  test('parentheses override precedence', () => {
    expect(expr('a mul (2 add 3)')).toEqual(bin('mul', path('a'), bin('add', int('2'), int('3'))));
    expect(expr('( true )')).toEqual({ kind: 'literal', literal: { kind: 'boolean', value: true } });
  });

  test('operators are case-insensitive (4.01 §5.1.1.1)', () => {
    expect(expr("Name EQ 'Milk' AND Price Lt 2")).toEqual(bin('and', bin('eq', path('Name'), str('Milk')), bin('lt', path('Price'), int('2'))));
  });

  test('divby and mod are multiplicative', () => {
    expect(expr('a divby 2 mod 3')).toEqual(bin('mod', bin('divby', path('a'), int('2')), int('3')));
  });
});

describe('in and has', () => {
  test('in takes a parenthesised list of literals, possibly empty, with optional spaces', () => {
    expect(expr("Name in ('Milk', 'Cheese')")).toEqual(bin('in', path('Name'), { kind: 'list', items: [str('Milk'), str('Cheese')] }));
    expect(expr('Name in ()')).toEqual(bin('in', path('Name'), { kind: 'list', items: [] }));
  });

  test('in also takes an expression: a parenthesised name, a JSON array, a path', () => {
    expect(expr('FirstName in (FirstName)')).toEqual(bin('in', path('FirstName'), path('FirstName')));
    expect(as(as(parseExpression('Name in ["a","b"]'), 'binary').right, 'json').text).toBe('["a","b"]');
    expect(expr('Name in Names')).toEqual(bin('in', path('Name'), path('Names')));
  });

  test('a list may only hold literals, and only after in', () => {
    expect(syntaxError(() => parseExpression('FirstName in (FirstName,LastName)')).position).toBe(23);
    expect(syntaxError(() => parseExpression("Names eq ('a','b')")).message).toMatch(/only allowed after 'in'/);
  });

  test('has takes an enum literal', () => {
    expect(expr("style has Sales.Pattern'Yellow'")).toEqual(
      bin('has', path('style'), { kind: 'literal', literal: { kind: 'enum', typeName: 'Sales.Pattern', members: ['Yellow'] } }),
    );
    expect(syntaxError(() => parseExpression('style has 1')).message).toMatch(/enum literal/);
  });
});

describe('operands', () => {
  test('member paths, type casts, $it, $this, $root and aliases', () => {
    expect(expr('Supplier/Address/City')).toEqual(path('Supplier', 'Address', 'City'));
    expect(expr('Model.VipCustomer/Rating')).toEqual({
      kind: 'member',
      root: { kind: 'it' },
      segments: [{ kind: 'cast', typeName: 'Model.VipCustomer' }, { kind: 'name', name: 'Rating' }],
    });
    expect(expr('$it/Name')).toEqual({ kind: 'member', root: { kind: 'it' }, segments: [{ kind: 'name', name: 'Name' }] });
    expect(expr('$this')).toEqual({ kind: 'member', root: { kind: 'this' }, segments: [] });
    expect(expr("$root/Employees('A1')/Name")).toEqual({
      kind: 'member',
      root: { kind: 'root' },
      segments: [
        { kind: 'name', name: 'Employees' },
        { kind: 'key', key: { kind: 'single', value: { kind: 'string', value: 'A1' } } },
        { kind: 'name', name: 'Name' },
      ],
    });
    expect(expr('@p')).toEqual({ kind: 'alias', name: 'p' });
    expect(expr('@m/FirstName')).toEqual({ kind: 'member', root: { kind: 'alias', name: 'm' }, segments: [{ kind: 'name', name: 'FirstName' }] });
  });

  test('lambdas: any with a variable, empty any(), all', () => {
    const any = as(parseExpression('Items/any(d:d/Qty gt 1 and $it/Open)'), 'lambda');
    expect(any.operator).toBe('any');
    expect(any.variable).toBe('d');
    expect(bare(any.collection)).toEqual(path('Items'));
    const d = { kind: 'member', root: { kind: 'variable', name: 'd' }, segments: [{ kind: 'name', name: 'Qty' }] };
    expect(bare(any.predicate)).toEqual(bin('and', bin('gt', d, int('1')), path('Open')));
    expect(expr('Items/any()')).toEqual({ kind: 'lambda', operator: 'any', collection: path('Items') });
    expect(as(parseExpression('Tags/all(t: t eq \'x\')'), 'lambda').operator).toBe('all');
  });

  test('lambda errors: no path, all() without predicate', () => {
    expect(syntaxError(() => parseExpression('any()')).position).toBe(3);
    expect(syntaxError(() => parseExpression('Items/all()')).message).toMatch(/all\(\) needs a lambda variable/);
  });

  test('canonical functions, case-insensitive names, arity checked', () => {
    expect(expr("contains(Name,'x')")).toEqual({ kind: 'call', name: 'contains', args: [path('Name'), str('x')] });
    expect(as(parseExpression('MATCHESPATTERN(Name,\'^A\')'), 'call').name).toBe('matchesPattern');
    expect(as(parseExpression('now( )'), 'call').args).toEqual([]);
    expect(as(parseExpression('geo.distance(a,b)'), 'call').name).toBe('geo.distance');
    expect(syntaxError(() => parseExpression('contains(Name)')).message).toMatch(/contains\(\) takes 2 arguments but was given 1/);
  });

  test('cast and isof keep the type name apart from the operand', () => {
    expect(expr('cast(Price,Edm.Int32)')).toEqual({ kind: 'call', name: 'cast', args: [path('Price')], typeName: 'Edm.Int32' });
    expect(expr('isof(Model.Customer)')).toEqual({ kind: 'call', name: 'isof', args: [], typeName: 'Model.Customer' });
  });

  test('qualified function calls are path segments with named parameters', () => {
    expect(expr("Model.PhoneticallySimilar(Word=Name,N=5 add 3)")).toEqual({
      kind: 'member',
      root: { kind: 'it' },
      segments: [
        {
          kind: 'function',
          name: 'Model.PhoneticallySimilar',
          params: [
            { name: 'Word', value: path('Name') },
            { name: 'N', value: bin('add', int('5'), int('3')) },
          ],
        },
      ],
    });
  });

  test('JSON arrays and objects are kept as text', () => {
    expect(expr('{"a":[1, 2 add 3],"b":"x\\"y"}')).toEqual({ kind: 'json', text: '{"a":[1, 2 add 3],"b":"x\\"y"}' });
  });
});

describe('whitespace, as the ABNF defines it', () => {
  test('binary operators need whitespace on both sides; tabs count', () => {
    expect(expr('a\teq\t1')).toEqual(bin('eq', path('a'), int('1')));
    expect(syntaxError(() => parseExpression("a eq'x'")).message).toMatch(/expected a space after 'eq'/);
    expect(syntaxError(() => parseExpression('a eq1')).message).toMatch(/expected an operator .* but found 'eq1'/);
  });

  test('no whitespace before or after the whole expression', () => {
    expect(syntaxError(() => parseExpression(' a eq 1')).position).toBe(0);
    expect(syntaxError(() => parseExpression('a eq 1 ')).message).toMatch(/unexpected space at the end/);
  });
});

describe('error messages name the position and what was expected', () => {
  test('a missing closing parenthesis', () => {
    const e = syntaxError(() => parseExpression('(a eq 1 and b eq 2 x'));
    expect(e.message).toBe("Syntax error at position 19 in $filter: expected ')' but found 'x'.");
    expect(e.option).toBe('$filter');
    expect(e.status).toBe(400);
  });

  test('a parenthesis never closed', () => {
    expect(syntaxError(() => parseExpression('(a eq 1')).message).toBe("Syntax error at position 7 in $filter: expected ')' but found the end of the input.");
  });

  test('an incomplete expression', () => {
    expect(syntaxError(() => parseExpression('a eq 1 and ')).message).toMatch(/position 11 .*expected an expression but found the end of the input/);
  });

  test('a qualified name alone', () => {
    expect(syntaxError(() => parseExpression('Model.Available')).position).toBe(15);
  });

  test('the option name appears in the message', () => {
    expect(syntaxError(() => parseExpression('a eq', '$orderby')).message).toMatch(/in \$orderby:/);
  });
});

describe('hostile input is refused after bounded work', () => {
  test('10,000 nested parentheses: 400 at the depth limit, no stack overflow', () => {
    const e = limitError(() => parseExpression(`${'('.repeat(10000)}a${')'.repeat(10000)}`));
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/deeper than 64 levels/);
  });

  test('10,000 nots, minuses, lambdas and function calls: 400', () => {
    const limits = { ...DEFAULT_PARSE_LIMITS, maxUrlLength: 1e6 };
    for (const text of ['not '.repeat(10000) + 'a', '-'.repeat(10000) + 'a', 'a/any(x:'.repeat(5000) + 'true' + ')'.repeat(5000), 'trim('.repeat(5000) + 'a' + ')'.repeat(5000)]) {
      expect(limitError(() => parseExpression(text, '$filter', limits)).status).toBe(400);
    }
  });

  test('a 5,000-term and-chain: 400 on the node count (length limit lifted)', () => {
    const chain = Array.from({ length: 5000 }, (_, i) => `a${i} eq ${i}`).join(' and ');
    const e = limitError(() => parseExpression(chain, '$filter', { ...DEFAULT_PARSE_LIMITS, maxUrlLength: 1e6 }));
    expect(e.message).toMatch(/more than 2000 syntax nodes/);
  });

  test('a long and-chain within the limits parses without deepening the stack', () => {
    const chain = Array.from({ length: 20000 }, (_, i) => `a${i} eq ${i}`).join(' and ');
    const e = parseExpression(chain, '$filter', { maxUrlLength: 1e7, maxDepth: 8, maxNodes: 1e6 });
    expect(e.kind).toBe('binary');
  });
});
