import { parseSelect } from '../../../src/uri/parse-options.js';
import { bare, path, str, syntaxError } from './helpers.js';

test('star, namespace star, paths with casts, annotations', () => {
  expect(bare(parseSelect('*,Model.*,Address/Model.AddressWithLocation/Location,@Core.Messages'))).toEqual([
    { kind: 'star' },
    { kind: 'qualifiedStar', namespace: 'Model' },
    {
      kind: 'path',
      segments: [{ kind: 'name', name: 'Address' }, { kind: 'cast', typeName: 'Model.AddressWithLocation' }, { kind: 'name', name: 'Location' }],
    },
    { kind: 'path', segments: [{ kind: 'annotation', term: 'Core.Messages' }] },
  ]);
});

test('actions and functions: qualified names and parameter signatures', () => {
  expect(bare(parseSelect('Model.ActionName,MostPopularName(Location,Kind)'))).toEqual([
    { kind: 'operation', qualifiedName: 'Model.ActionName' },
    { kind: 'operation', qualifiedName: 'MostPopularName', parameterNames: ['Location', 'Kind'] },
  ]);
});

test('nested options on collection properties, with or without $', () => {
  const [item] = parseSelect("Addresses($filter=startswith(City,'H');top=5;$select=Street;@c=15)");
  expect(item?.kind).toBe('path');
  const options = item?.kind === 'path' ? item.options : undefined;
  expect(bare(options?.filter)).toEqual({ kind: 'call', name: 'startswith', args: [path('City'), str('H')] });
  expect(options?.top).toBe(5);
  expect(options?.select).toHaveLength(1);
  expect(bare(options?.aliases?.get('c'))).toEqual({ kind: 'literal', literal: { kind: 'integer', value: '15' } });
});

test('$expand and $levels are not select options', () => {
  expect(syntaxError(() => parseSelect('Address($expand=Country)')).message).toMatch(/\$expand is not allowed after Address/);
});
