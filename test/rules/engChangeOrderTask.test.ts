/**
 * src/rules/engChangeOrderTask.ts, part 1: workCenterGroupCode and subEngChangeOrderNo exclude each
 * other, assignedEmail follows its resolution order (declared in the model), finishing a task activates
 * its ready successors, every activation writes one event to the outbox, and (engChangeOrderId, lineNo)
 * identifies a task (an alternate key).
 * Sub orders are in engChangeOrderTask.sub-orders.test.ts.
 */
import { REPO_METADATA, startTestService, type TestService } from '../helpers/test-service.js';
import { activatedSince, created, lastOutboxId, link, newEco, newTask, outbox, patch, patched, refused, row, taskStatuses } from './rule-helpers.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ metadataDir: REPO_METADATA });
});
afterAll(() => t.close());

describe('workCenterGroupCode and subEngChangeOrderNo', () => {
  test('both on POST → 400 naming both fields; nothing is created', async () => {
    const eco = await newEco(t);
    const sub = await newEco(t);
    for (const url of [`/engChangeOrders(${eco['id']})/engChangeOrderTasks`, `/companies(${t.companyIds[0]})/engChangeOrderTasks`]) {
      const body = { engChangeOrderId: eco['id'], workCenterGroupCode: 'WC-ASM', subEngChangeOrderNo: sub['number'] };
      await refused(t, () => t.call('POST', url, { body }), 400, 'Application_DialogException', /workCenterGroupCode and subEngChangeOrderNo cannot both be set/);
    }
  });

  test('PATCH setting one while the stored row has the other → 400 naming both; target is the field sent', async () => {
    const eco = await newEco(t);
    const sub = await newEco(t);
    const withGroup = await newTask(t, eco['id'], { workCenterGroupCode: 'WC-MACH' });
    const withSub = await newTask(t, eco['id'], { subEngChangeOrderNo: sub['number'] });
    const nested = (id: string): string => `/engChangeOrders(${eco['id']})/engChangeOrderTasks(${id})`;
    const other = await newEco(t);
    await refused(t, () => patch(t, nested(withGroup['id']), { subEngChangeOrderNo: other['number'] }), 400, 'Application_DialogException', 'WC-MACH and ' + String(other['number']), 'subEngChangeOrderNo');
    await refused(t, () => patch(t, `/companies(${t.companyIds[0]})/engChangeOrderTasks(${withSub['id']})`, { workCenterGroupCode: 'WC-ASM' }), 400, 'Application_DialogException', 'cannot both be set', 'workCenterGroupCode');
    expect((await row(t, 'engChangeOrders', other['id']))?.['parentEngChangeOrderNo']).toBeNull();
  });

  test('switching from one to the other in one PATCH is fine', async () => {
    const eco = await newEco(t);
    const sub = await newEco(t);
    const task = await newTask(t, eco['id'], { workCenterGroupCode: 'WC-QA' });
    const r = await patched(t, `/engChangeOrderTasks(${task['id']})`, { workCenterGroupCode: null, subEngChangeOrderNo: sub['number'] });
    expect(r).toMatchObject({ workCenterGroupCode: null, subEngChangeOrderNo: sub['number'] });
  });
});

describe('(engChangeOrderId, lineNo) is an alternate key', () => {
  test('a line number taken in the same order → 409 naming both fields, on POST and PATCH; nothing changes', async () => {
    const eco = await newEco(t);
    const first = await newTask(t, eco['id'], { lineNo: 10000 });
    const second = await newTask(t, eco['id']);
    expect(second['lineNo']).toBe(20000);
    const message = `Identification fields and values: engChangeOrderId='${String(eco['id'])}', lineNo='10000'.`;
    await refused(t, () => t.call('POST', `/engChangeOrders(${eco['id']})/engChangeOrderTasks`, { body: { lineNo: 10000 } }), 409, 'Internal_EntityWithSameKeyExists', message, 'engChangeOrderId');
    await refused(t, () => patch(t, `/engChangeOrderTasks(${second['id']})`, { lineNo: 10000 }), 409, 'Internal_EntityWithSameKeyExists', message, 'engChangeOrderId');
    // Its own line number again, and the same number in another order, are fine.
    expect(await patched(t, `/engChangeOrderTasks(${first['id']})`, { lineNo: 10000, description: 'same line' })).toMatchObject({ lineNo: 10000 });
    const other = await newEco(t);
    expect(await newTask(t, other['id'], { lineNo: 10000 })).toMatchObject({ lineNo: 10000 });
  });

  test('a task is addressable by its order and line number, and $metadata declares the alternate key', async () => {
    const eco = await newEco(t);
    const task = await newTask(t, eco['id'], { lineNo: 30000, description: 'by alternate key' });
    const r = await t.call('GET', `/engChangeOrderTasks(engChangeOrderId=${eco['id']},lineNo=30000)`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: task['id'], description: 'by alternate key' });
    const metadata = await t.call('GET', '/$metadata');
    const type = /<EntityType Name="engChangeOrderTask".*?<\/EntityType>/s.exec(metadata.text)?.[0] ?? '';
    expect(type).toMatch(/<Annotation Term="Core.AlternateKeys">.*<PropertyValue Property="Name" PropertyPath="engChangeOrderId"\/>.*<PropertyValue Property="Name" PropertyPath="lineNo"\/>/s);
  });
});

describe('assignedEmail: user setup e-mail → contact e-mail → work center group e-mail → empty', () => {
  beforeAll(async () => {
    await created(t, '/contacts', { number: 'CT-MAIL', name: 'Mail contact', email: 'contact@mail.example' });
    await created(t, '/contacts', { number: 'CT-NOMAIL', name: 'No mail' });
    await created(t, '/workCenterGroups', { code: 'WC-MAIL', name: 'Mail group', email: 'group@mail.example' });
    await created(t, '/workCenterGroups', { code: 'WC-NOMAIL', name: 'No mail group' });
    await created(t, '/userSetups', { userId: 'U-OWN', email: 'own@mail.example', contactNo: 'CT-MAIL' });
    await created(t, '/userSetups', { userId: 'U-CONTACT', email: '', contactNo: 'CT-MAIL' });
    await created(t, '/userSetups', { userId: 'U-NOTHING', contactNo: 'CT-NOMAIL' });
  });

  test.each([
    ['the user setup e-mail first', { assignedTo: 'U-OWN', workCenterGroupCode: 'WC-MAIL' }, 'own@mail.example'],
    ["then the user's contact e-mail (an empty user e-mail does not count)", { assignedTo: 'U-CONTACT', workCenterGroupCode: 'WC-MAIL' }, 'contact@mail.example'],
    ['then the work center group e-mail (user and contact without one)', { assignedTo: 'U-NOTHING', workCenterGroupCode: 'WC-MAIL' }, 'group@mail.example'],
    ['the work center group e-mail for a user without setup', { assignedTo: 'U-UNKNOWN', workCenterGroupCode: 'WC-MAIL' }, 'group@mail.example'],
    ['empty when no step has one', { assignedTo: 'U-NOTHING', workCenterGroupCode: 'WC-NOMAIL' }, ''],
    ['empty for an unassigned task without group', {}, ''],
  ])('%s', async (_name, body, email) => {
    const eco = await newEco(t);
    const task = await newTask(t, eco['id'], body);
    expect(task['assignedEmail']).toBe(email);
    expect((await t.call('GET', `/engChangeOrders(${eco['id']})/engChangeOrderTasks(${task['id']})?$select=assignedEmail`)).json.assignedEmail).toBe(email);
  });

  test('is recomputed on read: a changed contact e-mail shows at once', async () => {
    const eco = await newEco(t);
    const task = await newTask(t, eco['id'], { assignedTo: 'U-NOTHING' });
    expect(task['assignedEmail']).toBe('');
    const contact = (await t.call('GET', "/contacts?$filter=number eq 'CT-NOMAIL'")).json.value[0];
    await patched(t, `/contacts(${contact.id})`, { email: 'late@mail.example' });
    expect((await t.call('GET', `/engChangeOrderTasks(${task['id']})`)).json.assignedEmail).toBe('late@mail.example');
  });
});

describe('activation when a task is finished', () => {
  async function chain(status: 'New' | 'Released'): Promise<{ eco: Record<string, unknown>; ids: string[] }> {
    const eco = await newEco(t);
    const [a, b, c] = [await newTask(t, eco['id']), await newTask(t, eco['id']), await newTask(t, eco['id'])];
    expect((await link(t, b['id'], a['id'])).status).toBe(201);
    expect((await link(t, c['id'], b['id'])).status).toBe(201);
    if (status === 'Released') await patched(t, `/engChangeOrders(${eco['id']})`, { status: 'Released' });
    return { eco, ids: [a['id'], b['id'], c['id']] };
  }

  test('in a Released ECO each finished task activates its successor, with one event each', async () => {
    const { ids } = await chain('Released');
    const [a, b, c] = ids as [string, string, string];
    expect((await taskStatuses(t, ids))).toEqual(['Active', 'Not_x0020_Started', 'Not_x0020_Started']);
    const mark = (await lastOutboxId(t));
    await patched(t, `/engChangeOrderTasks(${a})`, { status: 'Finished' });
    expect((await taskStatuses(t, ids))).toEqual(['Finished', 'Active', 'Not_x0020_Started']);
    await patched(t, `/engChangeOrderTasks(${b})`, { status: 'Finished' });
    expect((await taskStatuses(t, ids))).toEqual(['Finished', 'Finished', 'Active']);
    expect((await activatedSince(t, mark))).toEqual([b, c]);
    const events = (await outbox(t)).filter((e) => e.id > mark);
    expect(events.map((e) => [e.eventName, e.eventVersion, e.status, e.companyId])).toEqual([
      ['EngChangeOrderTaskActivated', '1.0', 'Pending', t.companyIds[0]],
      ['EngChangeOrderTaskActivated', '1.0', 'Pending', t.companyIds[0]],
    ]);
    await patched(t, `/engChangeOrderTasks(${c})`, { status: 'Finished' });
    expect((await lastOutboxId(t))).toBe(mark + 2);
  });

  test('in an ECO that is not Released nothing is activated', async () => {
    const { ids } = await chain('New');
    const mark = (await lastOutboxId(t));
    await patched(t, `/engChangeOrderTasks(${ids[0]})`, { status: 'Finished' });
    expect((await taskStatuses(t, ids))).toEqual(['Finished', 'Not_x0020_Started', 'Not_x0020_Started']);
    expect((await lastOutboxId(t))).toBe(mark);
  });

  test('a task set to Active by hand raises the event once; saving it again raises none', async () => {
    const eco = await newEco(t);
    const task = await newTask(t, eco['id']);
    const mark = (await lastOutboxId(t));
    await patched(t, `/engChangeOrders(${eco['id']})/engChangeOrderTasks(${task['id']})`, { status: 'Active' });
    await patched(t, `/engChangeOrders(${eco['id']})/engChangeOrderTasks(${task['id']})`, { status: 'Active', processedBy: 'KLEE' });
    expect((await activatedSince(t, mark))).toEqual([task['id']]);
  });

  test('a refused write raises no event', async () => {
    const eco = await newEco(t);
    const task = await newTask(t, eco['id'], { workCenterGroupCode: 'WC-ASM' });
    await refused(t, () => patch(t, `/engChangeOrderTasks(${task['id']})`, { status: 'Active', subEngChangeOrderNo: 'ECO999999' }), 400, 'Application_DialogException', 'cannot both be set');
  });
});
