/**
 * src/rules/engChangeOrder.ts: releasing an order activates its ready tasks (one outbox event each),
 * deleting an order takes its tasks' sub orders with it and unlinks it from a parent task, a linked
 * order keeps its number; and the change description media field (generic, src/core/operations/media.ts).
 */
import { REPO_METADATA, startTestService, type TestService } from '../helpers/test-service.js';
import { activatedSince, lastOutboxId, link, newEco, newTask, patch, patched, refused, row, taskStatuses, type Entity } from './rule-helpers.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ metadataDir: REPO_METADATA });
});
afterAll(() => t.close());

const scoped = (): string => `/companies(${t.companyIds[0]})`;

/** A diamond a → (b, c) → d, a task e that is already Finished with successor f, and a lone task g. */
async function planned(): Promise<{ eco: Entity; ids: Record<'a' | 'b' | 'c' | 'd' | 'e' | 'f' | 'g', string> }> {
  const eco = await newEco(t);
  const ids = {} as Record<'a' | 'b' | 'c' | 'd' | 'e' | 'f' | 'g', string>;
  for (const name of ['a', 'b', 'c', 'd', 'e', 'f', 'g'] as const) ids[name] = (await newTask(t, eco['id'], { description: name }))['id'];
  for (const [task, pred] of [['b', 'a'], ['c', 'a'], ['d', 'b'], ['d', 'c'], ['f', 'e']] as const) expect((await link(t, ids[task], ids[pred])).status).toBe(201);
  await t.query('UPDATE "engChangeOrderTasks" SET "status" = ? WHERE "id" = ?', ['Finished', ids.e]);
  return { eco, ids };
}

describe('release', () => {
  test.each([
    ['PATCH engChangeOrders({id})', (eco: Entity): string => `/engChangeOrders(${eco['id']})`],
    ['PATCH engChangeOrders({id}), company-scoped', (eco: Entity): string => `${scoped()}/engChangeOrders(${eco['id']})`],
    ['PATCH engChangeOrderTasks({id})/engChangeOrder', (_eco: Entity, ids?: Record<string, string>): string => `/engChangeOrderTasks(${ids?.['g'] ?? ''})/engChangeOrder`],
  ])('%s activates exactly the Not Started tasks without unmet predecessors', async (_name, url) => {
    const { eco, ids } = await planned();
    const mark = (await lastOutboxId(t));
    const r = await patched(t, url(eco, ids), { status: 'Released' });
    expect(r['status']).toBe('Released');
    expect((await taskStatuses(t, [ids.a, ids.b, ids.c, ids.d, ids.e, ids.f, ids.g]))).toEqual(['Active', 'Not_x0020_Started', 'Not_x0020_Started', 'Not_x0020_Started', 'Finished', 'Active', 'Active']);
    expect((await activatedSince(t, mark))).toEqual([ids.a, ids.f, ids.g]);
  });

  test('saving a Released order again activates nothing more; other orders are untouched', async () => {
    const { eco, ids } = await planned();
    const other = await planned();
    await patched(t, `/engChangeOrders(${eco['id']})`, { status: 'Released' });
    const mark = (await lastOutboxId(t));
    await patched(t, `/engChangeOrders(${eco['id']})`, { status: 'Released', description: 'again' });
    expect((await lastOutboxId(t))).toBe(mark);
    expect((await taskStatuses(t, Object.values(other.ids)))).not.toContain('Active');
    expect((await taskStatuses(t, [ids.b]))).toEqual(['Not_x0020_Started']);
  });
});

describe('delete', () => {
  /** eco → (task → sub) → (task → subsub), with a predecessor link inside sub. */
  async function family(): Promise<{ eco: Entity; sub: Entity; subsub: Entity; task: Entity; ids: string[] }> {
    const [eco, sub, subsub] = [await newEco(t), await newEco(t), await newEco(t)];
    const task = await newTask(t, eco['id'], { subEngChangeOrderNo: sub['number'] });
    const inSub = await newTask(t, sub['id'], { subEngChangeOrderNo: subsub['number'] });
    const after = await newTask(t, sub['id']);
    expect((await link(t, after['id'], inSub['id'])).status).toBe(201);
    const inSubSub = await newTask(t, subsub['id']);
    return { eco, sub, subsub, task, ids: [task['id'], inSub['id'], after['id'], inSubSub['id']] };
  }

  test.each([
    ['DELETE engChangeOrders({id})', (f: { eco: Entity }): string => `/engChangeOrders(${f.eco['id']})`],
    ['DELETE engChangeOrderTasks({id})/engChangeOrder', (f: { task: Entity }): string => `${scoped()}/engChangeOrderTasks(${f.task['id']})/engChangeOrder`],
  ])('%s deletes its tasks, their sub orders and everything below', async (_name, url) => {
    const f = await family();
    expect((await t.call('DELETE', url(f))).status).toBe(204);
    for (const eco of [f.eco, f.sub, f.subsub]) expect((await row(t, 'engChangeOrders', eco['id']))).toBeUndefined();
    for (const id of f.ids) expect((await row(t, 'engChangeOrderTasks', id))).toBeUndefined();
    const links = await t.query('SELECT count(*) AS n FROM "engChangeOrderTaskPredecessors" WHERE "taskId" IN (?, ?, ?, ?)', f.ids);
    expect(Number(links[0]?.['n'])).toBe(0);
  });

  test('deleting a sub order directly unlinks it from its parent task; the parent order stays', async () => {
    const f = await family();
    expect((await t.call('DELETE', `/engChangeOrders(${f.sub['id']})`)).status).toBe(204);
    expect((await row(t, 'engChangeOrderTasks', f.task['id']))?.['subEngChangeOrderNo']).toBeNull();
    expect((await row(t, 'engChangeOrders', f.eco['id']))).toBeDefined();
    expect((await row(t, 'engChangeOrders', f.subsub['id']))).toBeUndefined();
  });
});

describe('number', () => {
  test('an order in a sub-order tree cannot be renumbered (400, nothing changes); a lone order can', async () => {
    const [eco, sub] = [await newEco(t), await newEco(t)];
    await newTask(t, eco['id'], { subEngChangeOrderNo: sub['number'] });
    for (const target of [eco, sub]) {
      await refused(t, () => patch(t, `/engChangeOrders(${target['id']})`, { number: `${String(target['number'])}-X` }), 400, 'Application_DialogException', 'sub-order tree', 'number');
    }
    const lone = await newEco(t);
    expect((await patch(t, `/engChangeOrders(${lone['id']})`, { number: `${String(lone['number'])}-X` })).status).toBe(200);
  });
});

describe('changeDescription (media, through the task)', () => {
  const media = (task: Entity, prefix = ''): string => `${prefix}/engChangeOrderTasks(${task['id']})/engChangeOrder/changeDescription`;
  async function taskOfNewEco(): Promise<Entity> {
    return await newTask(t, (await newEco(t))['id']);
  }

  test.each(['unscoped', 'scoped'])('text round trip keeps non-ASCII text exactly (%s URL)', async (form) => {
    const task = await taskOfNewEco();
    const prefix = form === 'scoped' ? scoped() : '';
    const eco = (await t.call('GET', `${prefix}/engChangeOrderTasks(${task['id']})/engChangeOrder`)).json;
    const text = 'Bohrung Ø 12 → 14 mm; Prüfung: 完了 ✓\r\nzweite Zeile 🙂';
    const put = await t.call('PUT', media(task, prefix), { body: Buffer.from(text, 'utf8'), headers: { 'Content-Type': 'text/plain; charset=utf-8', 'If-Match': eco['@odata.etag'] } });
    expect(put.status).toBe(204);
    expect(put.headers['ETag']).not.toBe(eco['@odata.etag']);
    const get = await t.call('GET', media(task, prefix));
    expect([get.status, get.headers['Content-Type'], get.text]).toEqual([200, 'text/plain; charset=utf-8', text]);
    expect((await t.call('GET', `/engChangeOrders(${eco['id']})`)).json['@odata.etag']).toBe(put.headers['ETag']);
  });

  test('204 when empty: a new order, and after a PUT of an empty body', async () => {
    const task = await taskOfNewEco();
    expect((await t.call('GET', media(task))).status).toBe(204);
    await t.call('PUT', media(task), { body: Buffer.from('x'), headers: { 'Content-Type': 'text/plain', 'If-Match': '*' } });
    expect((await t.call('PUT', media(task), { body: Buffer.alloc(0), headers: { 'Content-Type': 'text/plain', 'If-Match': '*' } })).status).toBe(204);
    const get = await t.call('GET', media(task));
    expect([get.status, get.text]).toEqual([204, '']);
  });

  test('the order read through the task carries the media links, not the content', async () => {
    const task = await taskOfNewEco();
    const eco = (await t.call('GET', `/engChangeOrderTasks(${task['id']})/engChangeOrder`)).json;
    const link = `${t.root}${scoped()}/engChangeOrders(${eco.id})/changeDescription`;
    expect(eco['changeDescription@odata.mediaReadLink']).toBe(link);
    expect(eco['changeDescription@odata.mediaEditLink']).toBe(link);
    expect(eco['changeDescription@odata.mediaContentType']).toBe('text/plain');
    expect(eco).not.toHaveProperty('changeDescription');
  });

  test.each([
    ['another media type', { 'Content-Type': 'application/json', 'If-Match': '*' }, Buffer.from('{}'), 415, 'BadRequest_UnsupportedMediaType', 'accepts only text/plain'],
    ['a charset other than UTF-8', { 'Content-Type': 'text/plain; charset=iso-8859-1', 'If-Match': '*' }, Buffer.from('Gr\xfc\xdfe', 'latin1'), 415, 'BadRequest_UnsupportedMediaType', 'charset=iso-8859-1'],
    ['bytes that are not UTF-8', { 'Content-Type': 'text/plain', 'If-Match': '*' }, Buffer.from([0x47, 0x72, 0xfc, 0x65]), 400, 'BadRequest', 'not valid UTF-8'],
    ['more than 1 MiB', { 'Content-Type': 'text/plain', 'If-Match': '*' }, Buffer.alloc(1048577, 0x61), 413, 'BadRequest_PayloadTooLarge', '1048576 bytes'],
    ['no If-Match', { 'Content-Type': 'text/plain' }, Buffer.from('x'), 428, 'BadRequest_InvalidToken', 'If-Match'],
    ['a stale If-Match', { 'Content-Type': 'text/plain', 'If-Match': 'W/"MQ=="' }, Buffer.from('x'), 412, 'Request_EntityChanged', 'Another user'],
  ])('PUT with %s → refused, nothing changes', async (_name, headers, body, status, code, message) => {
    const task = await taskOfNewEco();
    await t.call('PUT', media(task), { body: Buffer.from('kept'), headers: { 'Content-Type': 'text/plain', 'If-Match': '*' } });
    await refused(t, () => t.call('PUT', media(task), { body, headers }), status, code, message);
    expect((await t.call('GET', media(task))).text).toBe('kept');
  });
});
