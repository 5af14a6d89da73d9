/**
 * The whole ECN → ECO → task flow over the HTTP interface (in-process), in both URL forms: create an
 * ECN, approve it with its ETag, create the ECO, plan tasks with predecessors (a diamond and a chain),
 * release the ECO, then finish the tasks one by one. After every step: exactly which tasks are Active,
 * and exactly which events the outbox holds.
 */
import { REPO_METADATA, startTestService, type TestService } from '../helpers/test-service.js';
import { outbox, type Entity } from './rule-helpers.js';

type Name = 'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G';
const NAMES: readonly Name[] = ['A', 'B', 'C', 'D', 'E', 'F', 'G'];
// Diamond A → (B, C) → D; chain E → F → G.
const PREDECESSORS: readonly [Name, Name][] = [['B', 'A'], ['C', 'A'], ['D', 'B'], ['D', 'C'], ['F', 'E'], ['G', 'F']];

describe.each(['unscoped', 'company-scoped'])('%s URLs', (form) => {
  let t: TestService;
  let P = '';
  const ids = {} as Record<Name, string>;
  const nameOf = (id: string): string => NAMES.find((n) => ids[n] === id) ?? id;
  let ecoId = '';

  beforeAll(async () => {
    t = await startTestService({ metadataDir: REPO_METADATA });
    P = form === 'unscoped' ? '' : `/companies(${t.companyIds[0]})`;
  });
  afterAll(() => t.close());

  async function expectState(active: Name[], events: Name[]): Promise<void> {
    const tasks = (await t.call('GET', `${P}/engChangeOrders(${ecoId})/engChangeOrderTasks?$select=description,status`)).json.value as Entity[];
    expect(tasks.filter((x) => x['status'] === 'Active').map((x) => x['description']).sort()).toEqual([...active].sort());
    const rows = (await outbox(t));
    expect(rows.map((e) => nameOf((e.payload as { engChangeOrderTaskId: string }).engChangeOrderTaskId))).toEqual(events);
    for (const e of rows) {
      expect(e).toMatchObject({ eventName: 'EngChangeOrderTaskActivated', eventVersion: '1.0', status: 'Pending', companyId: t.companyIds[0] });
      expect(Object.keys(e.payload as object)).toEqual(['engChangeOrderTaskId']);
    }
  }

  async function finish(name: Name): Promise<void> {
    const url = `${P}/engChangeOrders(${ecoId})/engChangeOrderTasks(${ids[name]})`;
    const etag = (await t.call('GET', url)).json['@odata.etag'];
    const r = await t.call('PATCH', url, { body: { status: 'Finished' }, headers: { 'If-Match': etag } });
    expect([r.status, r.json.status]).toEqual([200, 'Finished']);
  }

  test('create an ECN, approve it with its ETag, create the ECO', async () => {
    const ecn = await t.call('POST', `${P}/engChangeNotices`, { body: { sourceType: 'Prod_x002E__x0020_Order', sourceStatus: 'Released', sourceNumber: 'PO-1001', sourceSequence: 1, changeReasonCode: 'QUALITY' } });
    expect(ecn.status).toBe(201);
    const approved = await t.call('PATCH', `${P}/engChangeNotices(${ecn.json.id})`, { body: { status: 'Approved' }, headers: { 'If-Match': ecn.json['@odata.etag'] } });
    expect([approved.status, approved.json.status]).toEqual([200, 'Approved']);
    const eco = await t.call('POST', `${P}/engChangeNotices(${ecn.json.id})/Microsoft.NAV.createEngChangeOrder`);
    expect(eco.status).toBe(200);
    expect(eco.json).toMatchObject({ status: 'New', engChangeNoticeNumber: ecn.json.number, description: `${ecn.json.number}: Quality issue` });
    ecoId = eco.json.id;
    await expectState([], []);
  });

  test('add tasks with predecessors: a diamond and a chain; nothing is active yet', async () => {
    for (const name of NAMES) {
      const r = await t.call('POST', `${P}/engChangeOrders(${ecoId})/engChangeOrderTasks`, { body: { description: name } });
      expect([r.status, r.json.status]).toEqual([201, 'Not_x0020_Started']);
      ids[name] = r.json.id;
    }
    for (const [task, pred] of PREDECESSORS) {
      const r = await t.call('POST', `${P}/engChangeOrderTasks(${ids[task]})/predecessors`, { body: { predecessorTaskId: ids[pred] } });
      expect(r.status).toBe(201);
    }
    // A link back from D to A would close a cycle: refused, and nothing was written.
    const cycle = await t.call('POST', `${P}/engChangeOrderTasks(${ids.A})/predecessors`, { body: { predecessorTaskId: ids.D } });
    expect([cycle.status, cycle.json.error.code, cycle.json.error.target]).toEqual([400, 'Application_DialogException', 'predecessorTaskId']);
    expect(cycle.json.error.message).toContain('would create a cycle');
    expect((await t.call('GET', `${P}/engChangeOrderTasks(${ids.A})/predecessors`)).json.value).toEqual([]);
    await expectState([], []);
  });

  test('release the ECO with its ETag: the tasks without predecessors become Active', async () => {
    const url = `${P}/engChangeOrders(${ecoId})`;
    const etag = (await t.call('GET', url)).json['@odata.etag'];
    const r = await t.call('PATCH', url, { body: { status: 'Released' }, headers: { 'If-Match': etag } });
    expect([r.status, r.json.status]).toEqual([200, 'Released']);
    await expectState(['A', 'E'], ['A', 'E']);
  });

  test('finish the tasks one by one: each successor starts when all its predecessors are finished', async () => {
    await finish('A');
    await expectState(['B', 'C', 'E'], ['A', 'E', 'B', 'C']);
    await finish('B');
    await expectState(['C', 'E'], ['A', 'E', 'B', 'C']);
    await finish('E');
    await expectState(['C', 'F'], ['A', 'E', 'B', 'C', 'F']);
    await finish('C');
    await expectState(['D', 'F'], ['A', 'E', 'B', 'C', 'F', 'D']);
    await finish('F');
    await expectState(['D', 'G'], ['A', 'E', 'B', 'C', 'F', 'D', 'G']);
    await finish('D');
    await finish('G');
    await expectState([], ['A', 'E', 'B', 'C', 'F', 'D', 'G']);
    const statuses = (await t.call('GET', `${P}/engChangeOrders(${ecoId})/engChangeOrderTasks`)).json.value.map((x: Entity) => x['status']);
    expect(statuses).toEqual(NAMES.map(() => 'Finished'));
  });
});
