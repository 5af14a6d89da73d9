import { aggregatedContextSelect, aggregatedToJson } from '../../../src/serialize/aggregated-json.js';
import type { ResultColumn } from '../../../src/query/bound-ast.js';

const column = (name: string, type: ResultColumn['type'], i: number): ResultColumn => ({ name, type, column: `c${i}` });
const columns: ResultColumn[] = [
  column('engChangeNotice/status', { kind: 'primitive', name: 'Edm.String' }, 0),
  column('engChangeNotice/changeReason/code', { kind: 'primitive', name: 'Edm.String' }, 1),
  column('type', { kind: 'primitive', name: 'Edm.String' }, 2),
  column('total', { kind: 'primitive', name: 'Edm.Decimal' }, 3),
  column('n', { kind: 'primitive', name: 'Edm.Int64' }, 4),
  column('flag', { kind: 'primitive', name: 'Edm.Boolean' }, 5),
];
const row = { c0: 'New', c1: null, c2: 'Item', c3: 11.5, c4: 3, c5: 1 };

test('grouping paths are nested per navigation, aliases follow in order, values in their JSON form', () => {
  const json = aggregatedToJson(columns, row, { metadata: 'minimal', ieee754Compatible: false });
  expect(JSON.stringify(json)).toBe('{"engChangeNotice":{"status":"New","changeReason":{"code":null}},"type":"Item","total":11.5,"n":3,"flag":true}');
});

test('IEEE754Compatible writes Int64 and Decimal as strings; full metadata marks every level transient', () => {
  expect(aggregatedToJson(columns, row, { metadata: 'minimal', ieee754Compatible: true })).toMatchObject({ total: '11.5', n: '3' });
  const full = aggregatedToJson(columns, row, { metadata: 'full', ieee754Compatible: false });
  expect(full['@odata.id']).toBeNull();
  expect((full['engChangeNotice'] as Record<string, unknown>)['@odata.id']).toBeNull();
});

test('the context URL select list nests the same way (JSON Format §10)', () => {
  expect(aggregatedContextSelect(columns)).toEqual(['engChangeNotice(status,changeReason(code))', 'type', 'total', 'n', 'flag']);
});
