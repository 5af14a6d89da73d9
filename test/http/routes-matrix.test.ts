/**
 * Every route of service-interface.md (ECN, comments, BOM lines, action, tasks, ECO navigation, change
 * description), in both URL forms (company-scoped and unscoped), with the status and body shape of
 * conventions §2. Event administration routes belong to the events issue and are not walked here.
 */
import { startTestService, type TestResponse, type TestService } from '../helpers/test-service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

type Form = 'scoped' | 'unscoped';
const forms: Form[] = ['scoped', 'unscoped'];
const prefix = (form: Form): string => (form === 'scoped' ? `/companies(${t.companyIds[0]})` : '');
const ctxPrefix = (form: Form): string => `${t.root}/$metadata#${form === 'scoped' ? `companies(${t.companyIds[0]})/` : ''}`;

async function first(form: Form, path: string): Promise<Record<string, unknown>> {
  const r = (await t.call('GET', `${prefix(form)}${path}${path.includes('?') ? '&' : '?'}$top=1`));
  expect(r.status).toBe(200);
  const row = (r.json.value as Record<string, unknown>[])[0];
  if (row === undefined) throw new Error(`no row at ${path}`);
  return row;
}

function expectCollection(r: TestResponse, context: string): void {
  expect(r.status).toBe(200);
  expect(Object.keys(r.json)[0]).toBe('@odata.context');
  expect(r.json['@odata.context']).toBe(context);
  expect(Array.isArray(r.json.value)).toBe(true);
  for (const e of r.json.value as Record<string, unknown>[]) expect(e['@odata.etag']).toMatch(/^W\/"[A-Za-z0-9+/=]+"$/);
  expect(r.headers['OData-Version']).toBe('4.0');
}

function expectEntity(r: TestResponse, status: number, context: string): void {
  expect(r.status).toBe(status);
  expect(Object.keys(r.json)[0]).toBe('@odata.context');
  expect(r.json['@odata.context']).toBe(context);
  expect(r.json['@odata.etag']).toMatch(/^W\/"[A-Za-z0-9+/=]+"$/);
  expect(r.headers['ETag']).toBe(r.json['@odata.etag']);
  expect(r.headers['OData-Version']).toBe('4.0');
}

async function newEcn(form: Form, status = 'New'): Promise<Record<string, unknown>> {
  const r = (await t.call('POST', `${prefix(form)}/engChangeNotices`, {
    body: { sourceType: 'Item', sourceNumber: 'ITEM-1', sourceSequence: 3, changeReasonCode: 'COST' },
  }));
  expect(r.status).toBe(201);
  if (status !== 'New') {
    const p = (await t.call('PATCH', `${prefix(form)}/engChangeNotices(${r.json.id})`, { body: { status }, headers: { 'If-Match': r.json['@odata.etag'] } }));
    expect(p.status).toBe(200);
    return p.json;
  }
  return r.json;
}

async function newTask(form: Form): Promise<Record<string, unknown>> {
  const eco = (await first(form, '/engChangeOrders'));
  const r = (await t.call('POST', `${prefix(form)}/engChangeOrderTasks`, { body: { engChangeOrderId: eco['id'], description: 'matrix task' } }));
  expect(r.status).toBe(201);
  return r.json;
}

describe.each(forms)('%s URLs', (form) => {
  const P = (): string => prefix(form);
  const C = (): string => ctxPrefix(form);

  test('GET /engChangeNotices', async () => expectCollection((await t.call('GET', `${P()}/engChangeNotices`)), `${C()}engChangeNotices`));
  test('POST /engChangeNotices (minimal payload) → 201 + Location', async () => {
    const r = (await t.call('POST', `${P()}/engChangeNotices`, { body: { sourceType: 'Prod_x002E__x0020_Order', sourceStatus: 'Released', sourceNumber: 'PO-1', sourceSequence: 1, changeReasonCode: 'DESIGN' } }));
    expectEntity(r, 201, `${C()}engChangeNotices/$entity`);
    expect(r.json.number).toMatch(/^ECN\d{6}$/);
    expect(r.json.status).toBe('New');
    expect(r.json.changeReasonDescription).toBe('Design improvement');
    expect(r.headers['Location']).toBe(`${t.root}/companies(${t.companyIds[0]})/engChangeNotices(${r.json.id})`);
  });
  test('GET /engChangeNotices({id})', async () => {
    const ecn = (await first(form, '/engChangeNotices'));
    expectEntity((await t.call('GET', `${P()}/engChangeNotices(${ecn['id']})`)), 200, `${C()}engChangeNotices/$entity`);
    expectEntity((await t.call('GET', `${P()}/engChangeNotices(id=${ecn['id']})`)), 200, `${C()}engChangeNotices/$entity`);
  });
  test('PATCH /engChangeNotices({id}) with If-Match', async () => {
    const ecn = (await newEcn(form));
    const r = (await t.call('PATCH', `${P()}/engChangeNotices(${ecn['id']})`, { body: { drawingNumber: 'DWG-9' }, headers: { 'If-Match': String(ecn['@odata.etag']) } }));
    expectEntity(r, 200, `${C()}engChangeNotices/$entity`);
    expect(r.json.drawingNumber).toBe('DWG-9');
    expect(r.json['@odata.etag']).not.toBe(ecn['@odata.etag']);
  });
  test('DELETE /engChangeNotices({id}) → 204, then 404', async () => {
    const ecn = (await newEcn(form));
    const r = (await t.call('DELETE', `${P()}/engChangeNotices(${ecn['id']})`));
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect((await t.call('GET', `${P()}/engChangeNotices(${ecn['id']})`)).status).toBe(404);
  });
  test('POST /engChangeNotices({id})/Microsoft.NAV.createEngChangeOrder on an Approved ECN → 200 ECO', async () => {
    const ecn = (await newEcn(form, 'Approved'));
    const r = (await t.call('POST', `${P()}/engChangeNotices(${ecn['id']})/Microsoft.NAV.createEngChangeOrder`));
    expectEntity(r, 200, `${C()}engChangeOrders/$entity`);
    expect(r.json.number).toMatch(/^ECO\d{6}$/);
    expect(r.json.engChangeNoticeNumber).toBe(ecn['number']);
    expect(r.json.status).toBe('New');
  });
  test('createEngChangeOrder on a New ECN → 400 Application_DialogException', async () => {
    const ecn = (await newEcn(form));
    const r = (await t.call('POST', `${P()}/engChangeNotices(${ecn['id']})/Microsoft.NAV.createEngChangeOrder`));
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('Application_DialogException');
  });
  test('GET, POST /engChangeNotices({id})/engChangeNoticeComments', async () => {
    const ecn = (await first(form, '/engChangeNotices'));
    expectCollection((await t.call('GET', `${P()}/engChangeNotices(${ecn['id']})/engChangeNoticeComments`)), `${C()}engChangeNotices(${ecn['id']})/engChangeNoticeComments`);
    const r = (await t.call('POST', `${P()}/engChangeNotices(${ecn['id']})/engChangeNoticeComments`, { body: { comment: 'via navigation' } }));
    expectEntity(r, 201, `${C()}engChangeNotices(${ecn['id']})/engChangeNoticeComments/$entity`);
    expect(r.json.engChangeNoticeId).toBe(ecn['id']);
    expect(r.json.lineNo % 10000).toBe(0);
  });
  test('GET, PATCH, DELETE /engChangeNotices({id})/engChangeNoticeComments({id1})', async () => {
    const ecn = (await first(form, '/engChangeNotices'));
    const c = (await t.call('POST', `${P()}/engChangeNotices(${ecn['id']})/engChangeNoticeComments`, { body: { comment: 'to change' } })).json;
    const url = `${P()}/engChangeNotices(${ecn['id']})/engChangeNoticeComments(${c.id})`;
    expectEntity((await t.call('GET', url)), 200, `${C()}engChangeNotices(${ecn['id']})/engChangeNoticeComments/$entity`);
    const p = (await t.call('PATCH', url, { body: { comment: 'changed' }, headers: { 'If-Match': c['@odata.etag'] } }));
    expectEntity(p, 200, `${C()}engChangeNotices(${ecn['id']})/engChangeNoticeComments/$entity`);
    expect((await t.call('DELETE', url)).status).toBe(204);
  });
  test('GET /engChangeNotices({id})/engChangeNoticeBOMLines; POST → 405', async () => {
    const ecn = (await first(form, '/engChangeNotices'));
    expectCollection((await t.call('GET', `${P()}/engChangeNotices(${ecn['id']})/engChangeNoticeBOMLines`)), `${C()}engChangeNotices(${ecn['id']})/engChangeNoticeBOMLines`);
    const r = (await t.call('POST', `${P()}/engChangeNotices(${ecn['id']})/engChangeNoticeBOMLines`, { body: { description: 'x' } }));
    expect(r.status).toBe(405);
    expect(r.json.error.code).toBe('BadRequest_MethodNotAllowed');
  });
  test('GET, PATCH /engChangeNotices({id})/engChangeNoticeBOMLines({id1}); DELETE → 405', async () => {
    const ecn = (await first(form, '/engChangeNotices'));
    const line = (await t.call('GET', `${P()}/engChangeNotices(${ecn['id']})/engChangeNoticeBOMLines`)).json.value[0];
    const url = `${P()}/engChangeNotices(${ecn['id']})/engChangeNoticeBOMLines(${line.id})`;
    expectEntity((await t.call('GET', url)), 200, `${C()}engChangeNotices(${ecn['id']})/engChangeNoticeBOMLines/$entity`);
    const p = (await t.call('PATCH', url, { body: { newQuantityPer: 7.5 }, headers: { 'If-Match': line['@odata.etag'] } }));
    expect(p.status).toBe(200);
    expect(p.json.newQuantityPer).toBe(7.5);
    const d = (await t.call('DELETE', url));
    expect(d.status).toBe(405);
    expect(d.json.error.code).toBe('BadRequest_MethodNotAllowed');
    expect((await t.call('GET', url)).status).toBe(200);
  });
  test('direct comment and BOM line sets', async () => {
    const ecn = (await first(form, '/engChangeNotices'));
    expectCollection((await t.call('GET', `${P()}/engChangeNoticeComments`)), `${C()}engChangeNoticeComments`);
    const c = (await t.call('POST', `${P()}/engChangeNoticeComments`, { body: { engChangeNoticeId: ecn['id'], comment: 'direct' } }));
    expectEntity(c, 201, `${C()}engChangeNoticeComments/$entity`);
    expectEntity((await t.call('GET', `${P()}/engChangeNoticeComments(${c.json.id})`)), 200, `${C()}engChangeNoticeComments/$entity`);
    expect((await t.call('PATCH', `${P()}/engChangeNoticeComments(${c.json.id})`, { body: { comment: 'direct 2' }, headers: { 'If-Match': '*' } })).status).toBe(200);
    expect((await t.call('DELETE', `${P()}/engChangeNoticeComments(${c.json.id})`)).status).toBe(204);
    expectCollection((await t.call('GET', `${P()}/engChangeNoticeBOMLines`)), `${C()}engChangeNoticeBOMLines`);
    expect((await t.call('POST', `${P()}/engChangeNoticeBOMLines`, { body: { engChangeNoticeId: ecn['id'] } })).status).toBe(405);
    const line = (await first(form, '/engChangeNoticeBOMLines'));
    expectEntity((await t.call('GET', `${P()}/engChangeNoticeBOMLines(${line['id']})`)), 200, `${C()}engChangeNoticeBOMLines/$entity`);
    expect((await t.call('PATCH', `${P()}/engChangeNoticeBOMLines(${line['id']})`, { body: { newItemNumber: 'CMP-2' }, headers: { 'If-Match': '*' } })).status).toBe(200);
    expect((await t.call('DELETE', `${P()}/engChangeNoticeBOMLines(${line['id']})`)).status).toBe(405);
  });
  test('GET, POST /engChangeOrderTasks; GET, PATCH, DELETE /engChangeOrderTasks({id})', async () => {
    expectCollection((await t.call('GET', `${P()}/engChangeOrderTasks`)), `${C()}engChangeOrderTasks`);
    const task = (await newTask(form));
    expect(task.status).toBe('Not_x0020_Started');
    const url = `${P()}/engChangeOrderTasks(${task['id']})`;
    expectEntity((await t.call('GET', url)), 200, `${C()}engChangeOrderTasks/$entity`);
    expectEntity((await t.call('PATCH', url, { body: { processedBy: 'KLEE' }, headers: { 'If-Match': String(task['@odata.etag']) } })), 200, `${C()}engChangeOrderTasks/$entity`);
    expect((await t.call('DELETE', url)).status).toBe(204);
  });
  test('GET, PATCH, DELETE /engChangeOrderTasks({id})/engChangeOrder', async () => {
    const task = (await newTask(form));
    const url = `${P()}/engChangeOrderTasks(${task['id']})/engChangeOrder`;
    const eco = (await t.call('GET', url));
    expectEntity(eco, 200, `${C()}engChangeOrders/$entity`);
    expect(eco.json.id).toBe(task['engChangeOrderId']);
    expect(eco.json['changeDescription@odata.mediaReadLink']).toBe(`${t.root}/companies(${t.companyIds[0]})/engChangeOrders(${eco.json.id})/changeDescription`);
    expectEntity((await t.call('PATCH', url, { body: { description: 'via task' }, headers: { 'If-Match': eco.json['@odata.etag'] } })), 200, `${C()}engChangeOrders/$entity`);
    // DELETE through the task removes the ECO and, by containment, its tasks.
    const fresh = (await t.call('POST', `${P()}/engChangeOrders`, { body: { description: 'to delete' } })).json;
    const t2 = (await t.call('POST', `${P()}/engChangeOrders(${fresh.id})/engChangeOrderTasks`, { body: { description: 'doomed' } })).json;
    expect((await t.call('DELETE', `${P()}/engChangeOrderTasks(${t2.id})/engChangeOrder`)).status).toBe(204);
    expect((await t.call('GET', `${P()}/engChangeOrders(${fresh.id})`)).status).toBe(404);
    expect((await t.call('GET', `${P()}/engChangeOrderTasks(${t2.id})`)).status).toBe(404);
  });
  test('GET, PUT /engChangeOrderTasks({id})/engChangeOrder/changeDescription', async () => {
    const task = (await newTask(form));
    const url = `${P()}/engChangeOrderTasks(${task['id']})/engChangeOrder/changeDescription`;
    const eco = (await t.call('GET', `${P()}/engChangeOrderTasks(${task['id']})/engChangeOrder`)).json;
    const text = 'Neue Zeichnung: Ø 12 mm → 14 mm\n';
    const put = (await t.call('PUT', url, { body: Buffer.from(text, 'utf8'), headers: { 'Content-Type': 'text/plain', 'If-Match': eco['@odata.etag'] } }));
    expect(put.status).toBe(204);
    const get = (await t.call('GET', url));
    expect(get.status).toBe(200);
    expect(get.headers['Content-Type']).toBe('text/plain; charset=utf-8');
    expect(get.text).toBe(text);
  });
  test('GET, POST /engChangeOrders({ecoId})/engChangeOrderTasks; GET, PATCH, DELETE one task', async () => {
    const eco = (await first(form, '/engChangeOrders'));
    expectCollection((await t.call('GET', `${P()}/engChangeOrders(${eco['id']})/engChangeOrderTasks`)), `${C()}engChangeOrders(${eco['id']})/engChangeOrderTasks`);
    const r = (await t.call('POST', `${P()}/engChangeOrders(${eco['id']})/engChangeOrderTasks`, { body: { description: 'nested' } }));
    expectEntity(r, 201, `${C()}engChangeOrders(${eco['id']})/engChangeOrderTasks/$entity`);
    const url = `${P()}/engChangeOrders(${eco['id']})/engChangeOrderTasks(${r.json.id})`;
    expectEntity((await t.call('GET', url)), 200, `${C()}engChangeOrders(${eco['id']})/engChangeOrderTasks/$entity`);
    expect((await t.call('PATCH', url, { body: { assignedTo: 'KLEE' }, headers: { 'If-Match': r.json['@odata.etag'] } })).status).toBe(200);
    expect((await t.call('DELETE', url)).status).toBe(204);
  });
  test('$count on a set and on a navigation', async () => {
    const r = (await t.call('GET', `${P()}/engChangeNotices/$count`));
    expect(r.status).toBe(200);
    expect(Number(r.text)).toBeGreaterThanOrEqual(12);
    const ecn = (await first(form, '/engChangeNotices'));
    expect((await t.call('GET', `${P()}/engChangeNotices(${ecn['id']})/engChangeNoticeBOMLines/$count`)).text).toBe('3');
  });
});

test('GET /companies lists the companies; a company-scoped URL never shows another company’s rows', async () => {
  const r = (await t.call('GET', '/companies'));
  expectCollection(r, `${t.root}/$metadata#companies`);
  expect((r.json.value as { name: string }[]).map((c) => c.name)).toEqual(expect.arrayContaining(['CRONUS', 'FABRIKAM']));
  const [a, b] = t.companyIds;
  const ecnOfA = (await t.call('GET', `/companies(${a})/engChangeNotices?$top=1`)).json.value[0];
  expect((await t.call('GET', `/companies(${b})/engChangeNotices(${ecnOfA.id})`)).status).toBe(404);
  expect((await t.call('PATCH', `/companies(${b})/engChangeNotices(${ecnOfA.id})`, { body: { drawingNumber: 'X' }, headers: { 'If-Match': '*' } })).status).toBe(404);
  const idsOfB = ((await t.call('GET', `/companies(${b})/engChangeNotices`)).json.value as { id: string }[]).map((e) => e.id);
  expect(idsOfB).not.toContain(ecnOfA.id);
});
