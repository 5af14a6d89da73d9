/**
 * PUT replaces an entity and deep insert creates contained children (conventions §8; OData 4.01
 * Part 1 §11.4.3 and §11.4.2.2): what a PUT leaves out returns to its default (null where none) while
 * values the service generates stay; If-Match as for PATCH. A deep insert creates the parent and its
 * children in one transaction, each child through its own validation, permission and rules, and
 * answers 201 with the children; a child type that refuses POST is refused nested, and nothing is created.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { metadataWithLimits } from '../helpers/metadata-copy.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

const NEW_ECN = { sourceType: 'Item', sourceNumber: 'ITM-1000', changeReasonCode: 'DESIGN', drawingNumber: 'DRW-7', drawingTypeCode: 'CAD', sourceSequence: 3 };

async function newEcn(): Promise<Record<string, unknown>> {
  const r = await t.call('POST', '/engChangeNotices', { body: NEW_ECN });
  expect(r.status).toBe(201);
  return r.json;
}

async function count(url: string): Promise<number> {
  return Number((await t.call('GET', `${url}/$count`)).text);
}

describe('PUT', () => {
  test('fields left out return to their default or null; generated values, keys and read-only fields stay', async () => {
    const ecn = await newEcn();
    const r = await t.call('PUT', `/engChangeNotices(${ecn['id']})`, {
      body: { sourceType: 'Item', sourceNumber: 'ITM-2000', itemNumber: 'ignored', lastModifiedDateTime: '2000-01-01T00:00:00Z', id: ecn['id'] },
      headers: { 'If-Match': ecn['@odata.etag'] as string },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      id: ecn['id'],
      number: ecn['number'], // from the number series: kept
      creationDate: ecn['creationDate'],
      createdBy: ecn['createdBy'],
      sourceNumber: 'ITM-2000',
      sourceSequence: 0, // default value
      status: 'New',
      drawingNumber: null, // no default
      drawingTypeCode: null,
      changeReasonCode: null,
    });
    expect(r.json['@odata.etag']).not.toBe(ecn['@odata.etag']);
  });

  test('If-Match as for PATCH: missing 428, stale 412, * matches', async () => {
    const ecn = await newEcn();
    const url = `/engChangeNotices(${ecn['id']})`;
    expect((await t.call('PUT', url, { body: { sourceType: 'Item' } })).status).toBe(428);
    expect((await t.call('PUT', url, { body: { sourceType: 'Item' }, headers: { 'If-Match': 'W/"MTIz"' } })).status).toBe(412);
    expect((await t.call('PUT', url, { body: { sourceType: 'Item', sourceNumber: 'A' }, headers: { 'If-Match': '*' } })).json.sourceNumber).toBe('A');
  });

  test('a key other than the URL key is a 400; the same key is ignored', async () => {
    const ecn = await newEcn();
    const r = await t.call('PUT', `/engChangeNotices(${ecn['id']})`, { body: { id: '2f0c0a6e-1b2c-4d5e-8f90-0123456789ab', sourceType: 'Item' }, headers: { 'If-Match': '*' } });
    expect([r.status, r.json.error.target]).toEqual([400, 'id']);
  });

  test('a required field without a default left out → 400 naming it, the row unchanged', async () => {
    const reason = (await t.call('GET', '/changeReasons?$top=1')).json.value[0];
    const r = await t.call('PUT', `/changeReasons(${reason.id})`, { body: { description: 'only this' }, headers: { 'If-Match': '*' } });
    expect([r.status, r.json.error.target]).toEqual([400, 'code']);
    expect((await t.call('GET', `/changeReasons(${reason.id})`)).json.description).toBe(reason.description);
  });

  test('a PUT runs the rules as an update of every field it sets: an Approved ECN stays Approved when the PUT says so', async () => {
    const ecn = await newEcn();
    const approved = await t.call('PATCH', `/engChangeNotices(${ecn['id']})`, { body: { status: 'Approved' }, headers: { 'If-Match': '*' } });
    expect(approved.json.status).toBe('Approved');
    const r = await t.call('PUT', `/engChangeNotices(${ecn['id']})`, { body: { sourceType: 'Item', sourceNumber: 'ITM-1000', status: 'Approved' }, headers: { 'If-Match': '*' } });
    expect([r.status, r.json.status, r.json.drawingNumber]).toEqual([200, 'Approved', null]);
  });

  test('PUT on a type that cannot be changed through the API → 405', async () => {
    const company = (await t.call('GET', '/companies?$top=1')).json.value[0];
    const r = await t.call('PUT', `/companies(${company.id})`, { body: { name: 'X' }, headers: { 'If-Match': '*' } });
    expect([r.status, r.json.error.code]).toEqual([405, 'BadRequest_MethodNotAllowed']);
  });
});

describe('deep insert', () => {
  test('an ECN with comments: one request, 201 with the children, each child with its parent and line number', async () => {
    const before = await count('/engChangeNoticeComments');
    const r = await t.call('POST', '/engChangeNotices', { body: { ...NEW_ECN, engChangeNoticeComments: [{ comment: 'first' }, { comment: 'second', date: '2025-01-02' }] } });
    expect(r.status).toBe(201);
    expect(r.json.engChangeNoticeComments).toHaveLength(2);
    expect(r.json.engChangeNoticeComments).toMatchObject([
      { engChangeNoticeId: r.json.id, comment: 'first', lineNo: 10000, userId: 'ADMIN' },
      { engChangeNoticeId: r.json.id, comment: 'second', lineNo: 20000, date: '2025-01-02' },
    ]);
    expect(r.json.engChangeNoticeComments[0]['@odata.etag']).toMatch(/^W\//);
    expect(await count('/engChangeNoticeComments')).toBe(before + 2);
    // The counter the children keep (bomCommentExists) is up to date in the answer, as when read back.
    expect(r.json.bomCommentExists).toBe(true);
    const read = (await t.call('GET', `/engChangeNotices(${r.json.id})`)).json;
    expect(read.bomCommentExists).toBe(true);
    const { engChangeNoticeComments: _children, '@odata.context': _a, ...created } = r.json;
    const { '@odata.context': _b, ...stored } = read;
    expect(created).toEqual(stored);
  });

  test('an ECO with tasks, and the tasks with their predecessors (two levels)', async () => {
    const r = await t.call('POST', '/engChangeOrders', {
      body: { description: 'deep', engChangeOrderTasks: [{ description: 'design', workCenterGroupCode: 'WC-ASM' }, { description: 'build', predecessors: [] }] },
    });
    expect(r.status).toBe(201);
    expect(r.json.engChangeOrderTasks.map((x: { description: string; lineNo: number }) => [x.description, x.lineNo])).toEqual([['design', 10000], ['build', 20000]]);
    expect((await t.call('GET', `/engChangeOrders(${r.json.id})/engChangeOrderTasks/$count`)).text).toBe('2');
  });

  test('a child that breaks its own rule: 400 naming it, nothing created', async () => {
    const [ecos, tasks] = [await count('/engChangeOrders'), await count('/engChangeOrderTasks')];
    const r = await t.call('POST', '/engChangeOrders', { body: { description: 'x', engChangeOrderTasks: [{ description: 'ok' }, { description: 'both', workCenterGroupCode: 'WC-ASM', subEngChangeOrderNo: 'ECO000001' }] } });
    expect([r.status, r.json.error.code]).toEqual([400, 'Application_DialogException']);
    expect([await count('/engChangeOrders'), await count('/engChangeOrderTasks')]).toEqual([ecos, tasks]);
  });

  test('a child body that is invalid: 400 naming the child and its field, nothing created', async () => {
    const before = await count('/engChangeNotices');
    const r = await t.call('POST', '/engChangeNotices', { body: { ...NEW_ECN, engChangeNoticeComments: [{ comment: 'ok' }, { comment: 'x'.repeat(81) }] } });
    expect([r.status, r.json.error.target]).toEqual([400, 'engChangeNoticeComments[1]/comment']);
    expect(r.json.error.message).toMatch(/^engChangeNoticeComments\[1\]: /);
    expect(await count('/engChangeNotices')).toBe(before);
  });

  test('BOM lines refuse POST, so they are refused nested: 405, nothing created', async () => {
    const before = await count('/engChangeNotices');
    const r = await t.call('POST', '/engChangeNotices', { body: { ...NEW_ECN, engChangeNoticeBOMLines: [{ description: 'x' }] } });
    expect([r.status, r.json.error.code]).toEqual([405, 'BadRequest_MethodNotAllowed']);
    expect(await count('/engChangeNotices')).toBe(before);
  });

  test("a child naming another parent → 400", async () => {
    const r = await t.call('POST', '/engChangeNotices', { body: { ...NEW_ECN, engChangeNoticeComments: [{ comment: 'x', engChangeNoticeId: '2f0c0a6e-1b2c-4d5e-8f90-0123456789ab' }] } });
    expect([r.status, r.json.error.target]).toEqual([400, 'engChangeNoticeId']);
  });

  test("each child's permission is checked: write permission on the parent's type is not enough", async () => {
    // A copy of the model where comments need their own permission set to be written.
    const dir = metadataWithLimits({});
    const file = path.join(dir, 'entities', 'engChangeNoticeComment.json');
    const entity = JSON.parse(fs.readFileSync(file, 'utf8')) as { permissions: Record<string, string> };
    entity.permissions = { read: 'ECN-READ', write: 'COMMENT-WRITE' };
    fs.writeFileSync(file, JSON.stringify(entity));
    const serviceFile = path.join(dir, 'service.json');
    const service = JSON.parse(fs.readFileSync(serviceFile, 'utf8')) as { permissionSets: { name: string; description: string }[] };
    service.permissionSets.push({ name: 'COMMENT-WRITE', description: 'Write ECN comments.' });
    fs.writeFileSync(serviceFile, JSON.stringify(service));
    const s = await startTestService({ metadataDir: dir });
    try {
      const users = s.service.context.users;
      await users.addUser('WRITER');
      await users.grant('WRITER', 'CRONUS', ['ECN-WRITE']);
      const token = await s.token('WRITER');
      const before = Number((await s.call('GET', '/engChangeNotices/$count')).text);
      const deny = await s.call('POST', '/engChangeNotices', { body: { ...NEW_ECN, engChangeNoticeComments: [{ comment: 'x' }] }, token });
      expect([deny.status, deny.json.error.message]).toEqual([403, expect.stringContaining('TableData engChangeNoticeComment Write')]);
      expect(Number((await s.call('GET', '/engChangeNotices/$count')).text)).toBe(before);
      expect((await s.call('POST', '/engChangeNotices', { body: NEW_ECN, token })).status).toBe(201);
      await users.grant('WRITER', 'CRONUS', ['COMMENT-WRITE']);
      expect((await s.call('POST', '/engChangeNotices', { body: { ...NEW_ECN, engChangeNoticeComments: [{ comment: 'x' }] }, token: await s.token('WRITER') })).status).toBe(201);
    } finally {
      await s.close();
    }
  });

  test('more children than limits.maxNestedEntities (100, all levels) → 400 naming the setting, nothing created', async () => {
    const before = await count('/engChangeOrders');
    const tasks = Array.from({ length: 100 }, (_, i) => ({ description: `t${i}` }));
    const ok = await t.call('POST', '/engChangeOrders', { body: { description: 'at the limit', engChangeOrderTasks: tasks } });
    expect(ok.status).toBe(201);
    const r = await t.call('POST', '/engChangeNotices', { body: { ...NEW_ECN, engChangeNoticeComments: Array.from({ length: 101 }, (_, i) => ({ comment: String(i) })) } });
    expect([r.status, r.json.error.target]).toEqual([400, 'engChangeNoticeComments']);
    expect(r.json.error.message).toMatch(/at most 100 entities .*limits\.maxNestedEntities/);
    expect(await count('/engChangeOrders')).toBe(before + 1);
  });

  test('Prefer: return=minimal → 204 with Location; the children are there', async () => {
    const r = await t.call('POST', '/engChangeNotices', { body: { ...NEW_ECN, engChangeNoticeComments: [{ comment: 'x' }] }, headers: { Prefer: 'return=minimal' } });
    expect(r.status).toBe(204);
    expect(await count(`${(r.headers['Location'] as string).replace(t.root, '')}/engChangeNoticeComments`)).toBe(1);
  });
});
