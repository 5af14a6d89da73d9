/**
 * src/rules/engChangeNotice.ts: approval only from New or Pending Approval, the "where applicable"
 * source fields, and the createEngChangeOrder action; every refusal leaves every row as it was.
 */
import { REPO_METADATA, startTestService, type TestService } from '../helpers/test-service.js';
import { created, newEco, patch, refused, row, type Entity } from './rule-helpers.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ metadataDir: REPO_METADATA });
});
afterAll(() => t.close());

const forms = ['scoped', 'unscoped'] as const;
const prefix = (form: (typeof forms)[number]): string => (form === 'scoped' ? `/companies(${t.companyIds[0]})` : '');

async function ecnIn(status: string, body: Record<string, unknown> = {}): Promise<Entity> {
  const ecn = await created(t, '/engChangeNotices', { sourceType: 'Item', sourceNumber: 'ITM-1', changeReasonCode: 'COST', ...body });
  if (status === 'New') return ecn;
  // Rules are not the subject here: put the ECN in its state directly.
  await t.query('UPDATE "engChangeNotices" SET "status" = ? WHERE "id" = ?', [status, ecn['id']]);
  return ecn;
}

describe('approval', () => {
  test.each(forms)('New → Approved with the ETag (%s URL)', async (form) => {
    const ecn = await ecnIn('New');
    const r = await t.call('PATCH', `${prefix(form)}/engChangeNotices(${ecn['id']})`, { body: { status: 'Approved' }, headers: { 'If-Match': ecn['@odata.etag'] } });
    expect(r.status).toBe(200);
    expect(r.json.status).toBe('Approved');
  });

  test('Pending Approval → Approved', async () => {
    const ecn = await ecnIn('Pending_x0020_Approval');
    expect((await patch(t, `/engChangeNotices(${ecn['id']})`, { status: 'Approved' })).json.status).toBe('Approved');
  });

  test.each(['Rejected', 'Closed'])('%s → Approved is a 400 naming the current state; nothing changes', async (status) => {
    const ecn = await ecnIn(status);
    for (const form of forms) {
      await refused(t, () => patch(t, `${prefix(form)}/engChangeNotices(${ecn['id']})`, { status: 'Approved' }), 400, 'Application_DialogException', `its status is ${status}`, 'status');
    }
    expect((await row(t, 'engChangeNotices', ecn['id']))?.['status']).toBe(status);
  });

  test('without If-Match the approval is 428 and nothing changes', async () => {
    const ecn = await ecnIn('New');
    await refused(t, () => t.call('PATCH', `/engChangeNotices(${ecn['id']})`, { body: { status: 'Approved' } }), 428, 'BadRequest_InvalidToken', 'If-Match');
  });

  test('other status changes and edits of a Rejected ECN are not the approval rule', async () => {
    const ecn = await ecnIn('Rejected');
    expect((await patch(t, `/engChangeNotices(${ecn['id']})`, { drawingNumber: 'DWG-1' })).status).toBe(200);
    expect((await patch(t, `/engChangeNotices(${ecn['id']})`, { status: 'Closed' })).status).toBe(200);
  });
});

describe('source fields where applicable', () => {
  test.each([
    [{ sourceType: 'Prod_x002E__x0020_Order', sourceStatus: 'Released' }],
    [{ sourceType: 'Sales_x0020_Quote', sourceSalesDocumentType: 'Quote' }],
    [{ sourceType: 'Sales_x0020_Order', sourceSalesDocumentType: 'Blanket_x0020_Order' }],
    [{ sourceType: 'Item', sourceStatus: '_x0020_', sourceSalesDocumentType: '_x0020_' }],
  ])('%j is accepted', async (body) => {
    expect((await t.call('POST', '/engChangeNotices', { body: { sourceNumber: 'S-1', ...body } })).status).toBe(201);
  });

  test.each([
    [{ sourceType: 'Item', sourceStatus: 'Released' }, 'sourceStatus', 'Prod. Order'],
    [{ sourceType: 'Sales_x0020_Order', sourceStatus: 'Planned' }, 'sourceStatus', "source type is 'Sales Order'"],
    [{ sourceType: 'Prod_x002E__x0020_Order', sourceSalesDocumentType: 'Order' }, 'sourceSalesDocumentType', 'Sales Quote and Sales Order'],
    [{ sourceStatus: 'Firm_x0020_Planned' }, 'sourceStatus', "source type is ' '"],
  ])('POST %j → 400 naming %s; no row, no number used', async (body, field, message) => {
    await refused(t, () => t.call('POST', '/engChangeNotices', { body: { sourceNumber: 'S-1', ...body } }), 400, 'Application_DialogException', message, field);
  });

  test('PATCH of sourceType that leaves a sourceStatus behind → 400 naming sourceStatus', async () => {
    const ecn = await ecnIn('New', { sourceType: 'Prod_x002E__x0020_Order', sourceStatus: 'Released' });
    await refused(t, () => patch(t, `/engChangeNotices(${ecn['id']})`, { sourceType: 'Item' }), 400, 'Application_DialogException', "source type is 'Item'", 'sourceStatus');
    expect((await patch(t, `/engChangeNotices(${ecn['id']})`, { sourceType: 'Item', sourceStatus: '_x0020_' })).status).toBe(200);
  });

  test('PATCH of sourceSalesDocumentType on an Item ECN → 400; other fields stay editable', async () => {
    const ecn = await ecnIn('New');
    await refused(t, () => patch(t, `/engChangeNotices(${ecn['id']})`, { sourceSalesDocumentType: 'Order' }), 400, 'Application_DialogException', 'sourceSalesDocumentType applies only', 'sourceSalesDocumentType');
    expect((await patch(t, `/engChangeNotices(${ecn['id']})`, { sourceNumber: 'ITM-2' })).status).toBe(200);
  });
});

describe('createEngChangeOrder', () => {
  const action = (form: (typeof forms)[number], id: string): string => `${prefix(form)}/engChangeNotices(${id})/Microsoft.NAV.createEngChangeOrder`;

  test.each(forms)('on an Approved ECN creates a New ECO from it (%s URL); twice creates two', async (form) => {
    const ecn = await ecnIn('Approved', { changeReasonCode: 'DESIGN' });
    const first = await t.call('POST', action(form, ecn['id']));
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ status: 'New', engChangeNoticeNumber: ecn['number'], description: `${ecn['number']}: Design improvement`, parentEngChangeOrderNo: null });
    expect(first.json.number).toMatch(/^ECO\d{6}$/);
    expect(first.headers['ETag']).toBe(first.json['@odata.etag']);
    const second = await t.call('POST', action(form, ecn['id']));
    expect(second.status).toBe(200);
    expect(second.json.number).not.toBe(first.json.number);
    expect((await row(t, 'engChangeNotices', ecn['id']))?.['status']).toBe('Approved');
  });

  test.each(['New', 'Pending_x0020_Approval', 'Rejected', 'Closed'])('on a %s ECN → 400; the ECN is untouched and no ECO is created', async (status) => {
    const ecn = await ecnIn(status);
    for (const form of forms) {
      await refused(t, () => t.call('POST', action(form, ecn['id'])), 400, 'Application_DialogException', 'only be created from an Approved', 'status');
    }
  });

  test('a stale If-Match on the action → 412; none is needed', async () => {
    const ecn = await ecnIn('Approved');
    await refused(t, () => t.call('POST', action('unscoped', ecn['id']), { headers: { 'If-Match': 'W/"MQ=="' } }), 412, 'Request_EntityChanged', 'Another user');
    expect((await t.call('POST', action('unscoped', ecn['id']))).status).toBe(200);
  });

  test('an unknown ECN → 404', async () => {
    await refused(t, () => t.call('POST', action('scoped', '2f0c0a6e-1b2c-4d5e-8f90-0123456789ab')), 404, 'Internal_RecordNotFound', 'The engChangeNotice does not exist');
  });

  test('the ECO it creates is an ordinary ECO (its own rules apply)', async () => {
    const ecn = await ecnIn('Approved');
    const eco = (await t.call('POST', action('unscoped', ecn['id']))).json as Entity;
    const sub = await newEco(t);
    const task = await created(t, `/engChangeOrders(${eco['id']})/engChangeOrderTasks`, { subEngChangeOrderNo: sub['number'] });
    expect(task['subEngChangeOrderNo']).toBe(sub['number']);
    expect((await row(t, 'engChangeOrders', sub['id']))?.['parentEngChangeOrderNo']).toBe(eco['number']);
  });
});
