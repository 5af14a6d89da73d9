import { isCanonicalFunction } from '../../../src/uri/parse-method-call.js';
import { parseExpression } from '../../../src/uri/parse-expression.js';
import { as, bare, path, syntaxError } from './helpers.js';

test('all canonical functions of URL Conventions §5.1.1 are known, in any case', () => {
  for (const name of 'contains startswith endswith length indexof substring tolower toupper trim concat matchesPattern year month day hour minute second fractionalseconds totalseconds date time totaloffsetminutes now maxdatetime mindatetime round floor ceiling cast isof geo.distance geo.intersects geo.length hassubset hassubsequence case'.split(' ')) {
    expect(isCanonicalFunction(name.toUpperCase())).toBe(true);
  }
  expect(isCanonicalFunction('Model.Available')).toBe(false);
});

test('argument counts: substring takes 2 or 3, now none', () => {
  expect(as(parseExpression('substring(Name,1,2)'), 'call').args).toHaveLength(3);
  expect(syntaxError(() => parseExpression('substring(Name)')).message).toMatch(/takes 2 or 3 arguments/);
  expect(syntaxError(() => parseExpression('now(1)')).message).toMatch(/takes 0 arguments but was given 1/);
});

test('cast and isof take an optional operand and a type name, also Collection(...)', () => {
  expect(bare(parseExpression('cast(Customer)'))).toEqual({ kind: 'call', name: 'cast', args: [], typeName: 'Customer' });
  expect(bare(parseExpression('isof(Tags,Collection(Edm.String))'))).toEqual({ kind: 'call', name: 'isof', args: [path('Tags')], typeName: 'Collection(Edm.String)' });
  expect(syntaxError(() => parseExpression('cast(a,1)')).message).toMatch(/type name/);
});

test('case(condition:value, ...) keeps conditions and values in order', () => {
  const call = as(parseExpression('case( X gt 0 : 1 , true : 0)'), 'call');
  expect(call.name).toBe('case');
  expect(call.args.map((a) => a.kind)).toEqual(['binary', 'literal', 'literal', 'literal']);
  expect(syntaxError(() => parseExpression('case(X gt 0,1)')).message).toMatch(/':' between a case condition and its value/);
});
