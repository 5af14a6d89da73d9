/**
 * src/query/plan-returning.ts with store/update-entity.ts and insert-entity.ts: a write returns the row
 * it wrote (RETURNING) in one statement, with exactly what reading the row back gives, computed
 * properties included (a lookup, a count-based flag, the fallback chain of assignedEmail), on each
 * engine: the exact SQL and parameters, then executed on a real database of each (plan-returning-cases.ts;
 * here on SQLite, plan-returning-postgres.test.ts on PostgreSQL). A type whose computed properties read
 * its own table is read back instead (writeReturnsRow).
 */
import { REPO_METADATA, startTestService } from '../../helpers/test-service.js';
import { writeReturnsRow } from '../../../src/query/plan-returning.js';
import type { EntityType } from '../../../src/edm/model.js';
import { planReturningCases } from './plan-returning-cases.js';

planReturningCases('sqlite');

describe('writeReturnsRow', () => {
  type Fake = { name: string; table: string; properties: unknown[]; navigationByName: Map<string, { target: Fake }> };
  const fake = (name: string, table: string): Fake => ({ name, table, properties: [], navigationByName: new Map() });
  const computed = (computedValue: unknown) => ({ name: 'c', storage: { kind: 'computed', computed: computedValue } });
  const returns = (type: Fake): boolean => writeReturnsRow(type as unknown as EntityType);

  test('the shipped types read only other tables: their writes return the row', async () => {
    const t = await startTestService({ metadataDir: REPO_METADATA, seed: false });
    try {
      for (const type of t.service.model.entityTypes) expect([type.name, writeReturnsRow(type)]).toEqual([type.name, true]);
    } finally {
      await t.close();
    }
  });

  test('a lookup through another table returns the row; one that comes back to its own table, directly or after a hop, is read back', () => {
    const node = fake('node', 'nodes');
    const other = fake('other', 'others');
    node.navigationByName.set('other', { target: other });
    node.navigationByName.set('parent', { target: node });
    other.navigationByName.set('node', { target: node });
    node.properties = [computed({ kind: 'lookup', path: ['other', 'name'] })];
    expect(returns(node)).toBe(true);
    const direct = { ...fake('node', 'nodes'), navigationByName: node.navigationByName, properties: [computed({ kind: 'lookup', path: ['parent', 'name'] })] };
    expect(returns(direct)).toBe(false);
    const hop = { ...fake('node', 'nodes'), navigationByName: node.navigationByName, properties: [computed({ kind: 'firstNonEmpty', paths: [['other', 'name'], ['other', 'node', 'name']], fallback: null })] };
    expect(returns(hop)).toBe(false);
  });

  test('a counter of a navigation to its own table is read back (RETURNING comes before the AFTER triggers that keep it)', () => {
    const node = fake('node', 'nodes');
    node.navigationByName.set('children', { target: node });
    node.properties = [computed({ kind: 'exists', navigation: 'children' })];
    expect(returns(node)).toBe(false);
  });
});
