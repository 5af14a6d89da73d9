/**
 * src/rules/engChangeOrderTask.ts, part 2 (with src/rules/sub-orders.ts): a task's subEngChangeOrderNo
 * links a sub order. Linking sets the sub order's parentEngChangeOrderNo; unknown orders, the task's own
 * order, its ancestors and orders that already have a parent are refused at any depth; clearing or
 * changing the link releases the old sub order; deleting the task deletes the whole sub tree in one
 * transaction.
 */
import { onPostgres } from '../helpers/postgres.js';
import { REPO_METADATA, startTestService, type TestService } from '../helpers/test-service.js';
import { newEco, newTask, patch, patched, refused, row, snapshot, type Entity } from './rule-helpers.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ metadataDir: REPO_METADATA });
});
afterAll(() => t.close());

const parentOf = async (eco: Entity): Promise<unknown> => (await row(t, 'engChangeOrders', eco['id']))?.['parentEngChangeOrderNo'];

/** E0 ← E1 ← … ← E<depth>: in each order a task linking the next one, plus a plain task. */
async function tree(depth: number): Promise<{ ecos: Entity[]; links: Entity[]; plain: Entity[] }> {
  const ecos: Entity[] = [];
  for (let i = 0; i <= depth; i++) ecos.push(await newEco(t, { description: `level ${i}` }));
  const links: Entity[] = [];
  const plain: Entity[] = [];
  for (let i = 0; i <= depth; i++) {
    const eco = ecos[i] as Entity;
    plain.push(await newTask(t, eco['id'], { description: `plain ${i}` }));
    if (i < depth) links.push(await newTask(t, eco['id'], { subEngChangeOrderNo: (ecos[i + 1] as Entity)['number'] }));
  }
  return { ecos, links, plain };
}

describe('linking', () => {
  test.each(['/engChangeOrderTasks', '/companies({company})/engChangeOrderTasks', '/engChangeOrders({eco})/engChangeOrderTasks'])('PATCH %s({id}) sets the sub order’s parent', async (route) => {
    const eco = await newEco(t);
    const sub = await newEco(t);
    const task = await newTask(t, eco['id']);
    const url = `${route.replace('{company}', t.companyIds[0] ?? '').replace('{eco}', eco['id'])}(${task['id']})`;
    expect((await patched(t, url, { subEngChangeOrderNo: sub['number'] }))['subEngChangeOrderNo']).toBe(sub['number']);
    expect((await parentOf(sub))).toBe(eco['number']);
    expect((await t.call('GET', `/engChangeOrders(${sub['id']})`)).json.parentEngChangeOrderNo).toBe(eco['number']);
  });

  test('an unknown order → 400', async () => {
    const eco = await newEco(t);
    const task = await newTask(t, eco['id']);
    await refused(t, () => patch(t, `/engChangeOrderTasks(${task['id']})`, { subEngChangeOrderNo: 'ECO-NONE' }), 400, 'Application_DialogException', 'There is no engineering change order ECO-NONE', 'subEngChangeOrderNo');
    await refused(t, () => t.call('POST', `/engChangeOrders(${eco['id']})/engChangeOrderTasks`, { body: { subEngChangeOrderNo: 'ECO-NONE' } }), 400, 'Application_DialogException', 'ECO-NONE');
  });

  test('the task’s own order → 400', async () => {
    const eco = await newEco(t);
    const task = await newTask(t, eco['id']);
    await refused(t, () => patch(t, `/engChangeOrderTasks(${task['id']})`, { subEngChangeOrderNo: eco['number'] }), 400, 'Application_DialogException', 'circular reference', 'subEngChangeOrderNo');
  });

  test('at depth 5: every ancestor, and every order that already has a parent, is refused', async () => {
    const { ecos } = await tree(5);
    const [e0, e1, e2, e3, e4, e5] = ecos as [Entity, Entity, Entity, Entity, Entity, Entity];
    const deepest = await newTask(t, e5['id']);
    for (const ancestor of [e0, e1, e2, e3, e4]) {
      await refused(t, () => patch(t, `/engChangeOrderTasks(${deepest['id']})`, { subEngChangeOrderNo: ancestor['number'] }), 400, 'Application_DialogException', `already above ${String(e5['number'])} in the same order tree`, 'subEngChangeOrderNo');
    }
    const middle = await newTask(t, e3['id']);
    await refused(t, () => patch(t, `/engChangeOrderTasks(${middle['id']})`, { subEngChangeOrderNo: e1['number'] }), 400, 'Application_DialogException', /ancestor|above/);
    const root = await newTask(t, e0['id']);
    await refused(t, () => patch(t, `/engChangeOrderTasks(${root['id']})`, { subEngChangeOrderNo: e4['number'] }), 400, 'Application_DialogException', `is already a sub order of ${String(e3['number'])}`);
    // Another tree may take the whole tree below it; then that order is an ancestor too.
    const other = await newEco(t);
    await newTask(t, other['id'], { subEngChangeOrderNo: e0['number'] });
    expect((await parentOf(e0))).toBe(other['number']);
    await refused(t, () => patch(t, `/engChangeOrderTasks(${deepest['id']})`, { subEngChangeOrderNo: other['number'] }), 400, 'Application_DialogException', String(other['number']));
    expect(await Promise.all(ecos.map(parentOf))).toEqual([other['number'], e0['number'], e1['number'], e2['number'], e3['number'], e4['number']]);
  });

  test('clearing the link releases the sub order; changing it moves the parent', async () => {
    const eco = await newEco(t);
    const [a, b] = [await newEco(t), await newEco(t)];
    const task = await newTask(t, eco['id'], { subEngChangeOrderNo: a['number'] });
    expect((await parentOf(a))).toBe(eco['number']);
    await patched(t, `/engChangeOrderTasks(${task['id']})`, { subEngChangeOrderNo: b['number'] });
    expect([(await parentOf(a)), (await parentOf(b))]).toEqual([null, eco['number']]);
    await patched(t, `/engChangeOrderTasks(${task['id']})`, { subEngChangeOrderNo: null });
    expect([(await parentOf(a)), (await parentOf(b))]).toEqual([null, null]);
    await patched(t, `/engChangeOrderTasks(${task['id']})`, { subEngChangeOrderNo: a['number'] });
    await patched(t, `/engChangeOrderTasks(${task['id']})`, { subEngChangeOrderNo: '' });
    expect((await parentOf(a))).toBeNull();
  });

  test('a refused change keeps the old link', async () => {
    const eco = await newEco(t);
    const a = await newEco(t);
    const task = await newTask(t, eco['id'], { subEngChangeOrderNo: a['number'] });
    await refused(t, () => patch(t, `/engChangeOrderTasks(${task['id']})`, { subEngChangeOrderNo: 'ECO-NONE' }), 400, 'Application_DialogException', 'ECO-NONE');
    expect((await parentOf(a))).toBe(eco['number']);
  });
});

describe('deleting the task deletes the sub tree', () => {
  const count = async (table: string, ids: readonly string[]): Promise<number> => (await Promise.all(ids.map((id) => row(t, table, id)))).filter((r) => r !== undefined).length;

  test.each(['/engChangeOrderTasks', '/engChangeOrders({eco})/engChangeOrderTasks'])('DELETE %s({id}) at depth 5: all orders below, their tasks and links go; the rest stays', async (route) => {
    const { ecos, links, plain } = await tree(5);
    const top = links[0] as Entity;
    const r = await t.call('DELETE', `${route.replace('{eco}', (ecos[0] as Entity)['id'])}(${top['id']})`);
    expect(r.status).toBe(204);
    expect((await count('engChangeOrders', ecos.map((e) => e['id'])))).toBe(1);
    expect((await row(t, 'engChangeOrders', (ecos[0] as Entity)['id']))).toBeDefined();
    expect((await count('engChangeOrderTasks', [...links, ...plain].map((x) => x['id'])))).toBe(1);
    expect((await row(t, 'engChangeOrderTasks', (plain[0] as Entity)['id']))).toBeDefined();
  });

  // SQLite only: the failure is a TEMP TRIGGER with RAISE(ABORT), which PostgreSQL spells differently.
  (onPostgres() ? test.skip : test)('a failure deep in the cascade rolls everything back', async () => {
    const { ecos, links } = await tree(5);
    const deepest = ecos[5] as Entity;
    t.service.db.raw.exec(`CREATE TEMP TRIGGER refuse_delete BEFORE DELETE ON "engChangeOrders" WHEN old.number = '${String(deepest['number'])}' BEGIN SELECT RAISE(ABORT, 'refused by test'); END`);
    try {
      await refused(t, () => t.call('DELETE', `/engChangeOrderTasks(${(links[0] as Entity)['id']})`), 500, 'Internal_ServerError', 'CorrelationId');
    } finally {
      t.service.db.raw.exec('DROP TRIGGER refuse_delete');
    }
    expect((await Promise.all(ecos.map(parentOf))).slice(1)).toEqual(ecos.slice(0, 5).map((e) => e['number']));
  });

  test('a stale link (an order that is not below this task) is not deleted', async () => {
    const eco = await newEco(t);
    const stranger = await newEco(t);
    const task = await newTask(t, eco['id']);
    await t.query('UPDATE "engChangeOrderTasks" SET "subEngChangeOrderNo" = ? WHERE "id" = ?', [stranger['number'], task['id']]);
    const before = (await snapshot(t, ['engChangeOrders']));
    expect((await t.call('DELETE', `/engChangeOrderTasks(${task['id']})`)).status).toBe(204);
    expect((await snapshot(t, ['engChangeOrders']))).toEqual(before);
  });
});
