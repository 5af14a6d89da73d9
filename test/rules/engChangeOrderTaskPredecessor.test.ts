/**
 * src/rules/engChangeOrderTaskPredecessor.ts: a predecessor link joins two different tasks of the same
 * order, exists once, and never closes a cycle (checked when the link is created, at any length).
 */
import { REPO_METADATA, startTestService, type TestService } from '../helpers/test-service.js';
import { link, newEco, newTask, refused, type Entity } from './rule-helpers.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ metadataDir: REPO_METADATA });
});
afterAll(() => t.close());

async function tasks(n: number): Promise<{ eco: Entity; ids: string[] }> {
  const eco = await newEco(t);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await newTask(t, eco['id'], { description: `task ${i + 1}` }))['id']);
  return { eco, ids };
}

test('a link between two tasks of one order is created through every route', async () => {
  const { eco, ids } = await tasks(4);
  const [a, b, c, d] = ids as [string, string, string, string];
  expect((await link(t, b, a)).status).toBe(201);
  expect((await t.call('POST', `/companies(${t.companyIds[0]})/engChangeOrderTasks(${c})/predecessors`, { body: { predecessorTaskId: a } })).status).toBe(201);
  expect((await t.call('POST', '/engChangeOrderTaskPredecessors', { body: { taskId: d, predecessorTaskId: b } })).status).toBe(201);
  const listed = (await t.call('GET', `/engChangeOrders(${eco['id']})/engChangeOrderTasks(${d})/predecessors`)).json.value;
  expect(listed.map((p: Entity) => p['predecessorTaskId'])).toEqual([b]);
});

test('a task of another order → 400, nothing is created', async () => {
  const one = await tasks(1);
  const other = await tasks(1);
  await refused(t, () => link(t, one.ids[0] ?? '', other.ids[0] ?? ''), 400, 'Application_DialogException', 'must be a task of the same engineering change order', 'predecessorTaskId');
});

test('a task as its own predecessor → 400', async () => {
  const { ids } = await tasks(1);
  await refused(t, () => link(t, ids[0] ?? '', ids[0] ?? ''), 400, 'Application_DialogException', 'cannot be its own predecessor', 'predecessorTaskId');
});

test('the same link twice → 400', async () => {
  const { ids } = await tasks(2);
  const [a, b] = ids as [string, string];
  expect((await link(t, b, a)).status).toBe(201);
  await refused(t, () => link(t, b, a), 400, 'Application_DialogException', 'is already a predecessor of', 'predecessorTaskId');
  await refused(t, () => t.call('POST', '/engChangeOrderTaskPredecessors', { body: { taskId: b, predecessorTaskId: a } }), 400, 'Application_DialogException', 'already a predecessor');
});

test('a link that closes a cycle → 400 naming the chain, for a 2-cycle and a 6-cycle', async () => {
  const { ids } = await tasks(6);
  const [a, b, c, d, e, f] = ids as [string, string, string, string, string, string];
  expect((await link(t, b, a)).status).toBe(201);
  await refused(t, () => link(t, a, b), 400, 'Application_DialogException', 'would create a cycle', 'predecessorTaskId');
  for (const [task, pred] of [[c, b], [d, c], [e, d], [f, e]] as const) expect((await link(t, task, pred)).status).toBe(201);
  await refused(t, () => link(t, a, f), 400, 'Application_DialogException', 'task lines 10000 → 20000 → 30000 → 40000 → 50000 → 60000');
  await refused(t, () => link(t, c, e), 400, 'Application_DialogException', 'would create a cycle');
});

test('a diamond is not a cycle: two paths to one task are fine', async () => {
  const { ids } = await tasks(4);
  const [a, b, c, d] = ids as [string, string, string, string];
  for (const [task, pred] of [[b, a], [c, a], [d, b], [d, c]] as const) expect((await link(t, task, pred)).status).toBe(201);
  expect((await link(t, d, a)).status).toBe(201);
});

test('an unknown predecessor task is a field validation error of the reference check', async () => {
  const { ids } = await tasks(1);
  await refused(t, () => link(t, ids[0] ?? '', '2f0c0a6e-1b2c-4d5e-8f90-0123456789ab'), 400, 'Application_FieldValidationException', 'cannot be found', 'predecessorTaskId');
});
