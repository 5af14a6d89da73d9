/**
 * src/query/plan-select.ts: the key is appended to the order of a read unless the order already sorts by
 * every column of a unique, non-nullable property or alternate key (then the rows of one company have
 * one order without it). A read whose entity JSON has members to splice gives their values as its last
 * columns when the reader splices them (planSplicedSelect).
 */
import { ordersUniquely, planSelect, planSplicedSelect, type ReadPlanInput } from '../../../src/query/plan-select.js';
import { col } from '../../../src/sql/build.js';
import { compile } from '../../../src/sql/compile.js';
import { sqliteDialect } from '../../../src/db/sqlite/sqlite-dialect.js';
import type { OrderItem, SqlExpr } from '../../../src/sql/nodes.js';
import type { EntityType } from '../../../src/edm/model.js';
import { loadTestModel } from '../../fixtures/model.js';

const model = loadTestModel();
const type = (name: string): EntityType => {
  const t = model.entityTypeByName.get(name);
  if (t === undefined) throw new Error(name);
  return t;
};
const by = (...columns: (string | SqlExpr)[]): OrderItem[] => columns.map((c) => ({ expr: typeof c === 'string' ? col('t0', c) : c, direction: 'ASC' }));

test('a unique, non-nullable property orders alone; other columns before or after it change nothing', () => {
  const ecn = type('engChangeNotice');
  expect(ecn.propertyByName.get('number')).toMatchObject({ unique: true, nullable: false });
  expect(ordersUniquely(ecn, 't0', by('number'))).toBe(true);
  expect(ordersUniquely(ecn, 't0', by('drawingTypeCode', 'number'))).toBe(true);
  expect(ordersUniquely(ecn, 't0', by('drawingTypeCode'))).toBe(false);
  expect(ordersUniquely(ecn, 't0', by())).toBe(false);
});

test('an alternate key orders only with all its columns, of this row', () => {
  const task = type('engChangeOrderTask');
  expect(task.alternateKeys.map((k) => k.map((p) => p.name))).toContainEqual(['engChangeOrderId', 'lineNo']);
  expect(ordersUniquely(task, 't0', by('engChangeOrderId', 'lineNo'))).toBe(true);
  expect(ordersUniquely(task, 't0', by('lineNo'))).toBe(false);
  // The same columns of another row (a join) or an expression over them order nothing.
  expect(ordersUniquely(task, 't0', [{ expr: col('t1', 'engChangeOrderId'), direction: 'ASC' }, ...by('lineNo')])).toBe(false);
  expect(ordersUniquely(task, 't0', by({ kind: 'call', name: 'length', args: [col('t0', 'engChangeOrderId')] }, 'lineNo'))).toBe(false);
});

test('a unique property that may be NULL does not order alone (NULLs repeat in a unique index)', () => {
  const nullable = model.entityTypes.flatMap((t) => t.properties.filter((p) => p.unique && p.nullable && p !== t.key).map((p) => ({ t, p })));
  // The fixture has none; one made from the ECN's number shows the rule.
  const ecn = type('engChangeNotice');
  const number = ecn.propertyByName.get('number');
  if (number === undefined) throw new Error('number');
  const withNullable: EntityType = { ...ecn, properties: ecn.properties.map((p) => (p === number ? { ...p, nullable: true } : p)) };
  expect(ordersUniquely(withNullable, 't0', by('number'))).toBe(false);
  expect(nullable.every(({ t, p }) => !ordersUniquely(t, 't0', by(p.name)))).toBe(true);
});

test('the SQL of a read by the default order has no key after the number; by another column it has', () => {
  const ecn = type('engChangeNotice');
  const read = (orderBy: OrderItem[]): string =>
    compile(planSelect({ type: ecn, companyId: 'C', conditions: [], select: new Set(['number']), orderBy: (scope) => orderBy.map((o) => ({ ...o, expr: col(scope.alias, (o.expr as { column: string }).column) })) }), sqliteDialect).sql;
  expect(read(by('number'))).toMatch(/ORDER BY "t0"\."number" ASC$/);
  expect(read(by('drawingTypeCode'))).toMatch(/ORDER BY "t0"\."drawingTypeCode" ASC, "t0"\."id" ASC$/);
});

test('spliced members: values are the last columns, texts stay in the splice; without spliceJson the database splices', () => {
  const ecn = type('engChangeNotice');
  const value = (n: number): SqlExpr => ({ kind: 'constant', value: n });
  const input: ReadPlanInput = {
    type: ecn,
    companyId: 'C',
    conditions: [],
    json: () => ({ object: col('t0', 'number'), members: [',"a":', value(1), ',"b":', value(2)], whole: col('t0', 'status') }),
    extraColumns: () => [{ expr: col('t0', 'drawingNumber'), alias: '_sort0' }],
  };
  const spliced = planSplicedSelect({ ...input, spliceJson: true });
  expect(spliced.select.columns.map((c) => c.alias)).toEqual(['_json', 'id', '_version', '_sort0', '_m1', '_m3']);
  expect(spliced.select.columns[0]?.expr).toEqual(col('t0', 'number'));
  expect(spliced.splice).toEqual([',"a":', 4, ',"b":', 5]);
  const whole = planSplicedSelect(input);
  expect(whole.splice).toBeUndefined();
  expect(whole.select.columns.map((c) => c.alias)).toEqual(['_json', 'id', '_version', '_sort0']);
  expect(whole.select.columns[0]?.expr).toEqual(col('t0', 'status'));
  expect(planSelect({ ...input, spliceJson: true })).toEqual(spliced.select);
  // Nothing to splice: the whole text, no splice.
  const none = planSplicedSelect({ ...input, spliceJson: true, json: () => ({ object: col('t0', 'number'), members: [], whole: col('t0', 'number') }) });
  expect(none.splice).toBeUndefined();
  expect(none.select.columns.map((c) => c.alias)).toEqual(['_json', 'id', '_version', '_sort0']);
});
