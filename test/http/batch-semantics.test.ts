/**
 * What a `$batch` does (OData 4.0 Part 1 §11.7, JSON Format §19, conventions §8): a change set is one
 * transaction (no row and no outbox event of a failed one), Content-ID references in URLs, If-Match
 * and bodies, each part authorized as if sent alone with the batch's credentials, stop or go on after
 * a failure, 424 for dependants, and the same rows whichever format carries the work.
 */
import { startTestService, type TestService, type TestResponse } from '../helpers/test-service.js';
import { changeSet, httpPart, multipart, readMultipart, type ReadPart } from '../helpers/batch-bodies.js';

let t: TestService;
let ecoId: string;
beforeAll(async () => {
  t = await startTestService();
  ecoId = (await t.call('GET', "/engChangeOrders?$top=1&$select=id&$filter=status eq 'Released'")).json.value[0].id;
});
afterAll(() => t.close());

const NEW_ECN = { sourceType: 'Item', sourceNumber: 'ITM-1000', changeReasonCode: 'DESIGN' };

function sendMultipart(parts: readonly string[], headers: Record<string, string> = {}, token?: string): Promise<TestResponse> {
  return t.call('POST', '/$batch', { body: multipart('b', parts), headers: { 'Content-Type': 'multipart/mixed; boundary=b', ...headers }, ...(token === undefined ? {} : { token }) });
}

function partsOf(r: TestResponse): ReadPart[] {
  expect(r.status).toBe(200);
  return readMultipart(r.headers['Content-Type'] as string, r.text);
}

async function count(table: 'outbox' | 'ecn' | 'comment' | 'task'): Promise<number> {
  const name = table === 'outbox' ? '_outbox' : t.service.model.entityTypes.find((e) => e.name === { ecn: 'engChangeNotice', comment: 'engChangeNoticeComment', task: 'engChangeOrderTask' }[table])?.table;
  return Number((await t.query(`SELECT count(*) AS n FROM "${name}"`))[0]?.['n']);
}

const counts = (): Promise<number[]> => Promise.all([count('ecn'), count('comment'), count('task'), count('outbox')]);

describe('a change set is one transaction', () => {
  // Part 1 creates an Active task (its rule raises EngChangeOrderTaskActivated), part 2 an ECN.
  const activeTask = (id: string): string => httpPart(`POST engChangeOrders(${ecoId})/engChangeOrderTasks`, { body: { description: 'batch task', status: 'Active' }, mime: { 'Content-ID': id } });
  const ecn = (id: string): string => httpPart('POST engChangeNotices', { body: NEW_ECN, mime: { 'Content-ID': id } });

  test('committed: every row and the event are there', async () => {
    const before = await counts();
    const parts = partsOf(await sendMultipart([changeSet('c', [activeTask('1'), ecn('2'), httpPart('POST $2/engChangeNoticeComments', { body: { comment: 'x' }, mime: { 'Content-ID': '3' } })])]));
    expect(parts[0]?.parts?.map((p) => [p.contentId, p.status])).toEqual([['1', 201], ['2', 201], ['3', 201]]);
    expect(await counts()).toEqual([before[0]! + 1, before[1]! + 1, before[2]! + 1, before[3]! + 1]);
  });

  test('three ECNs in one change set draw three numbers from the series, as three requests would', async () => {
    const parts = partsOf(await sendMultipart([changeSet('c', [ecn('1'), ecn('2'), ecn('3')])]));
    const numbers = (parts[0]?.parts ?? []).map((p) => JSON.parse(p.body).number as string);
    expect(new Set(numbers).size).toBe(3);
    const next = (await t.call('POST', '/engChangeNotices', { body: NEW_ECN })).json.number as string;
    expect(numbers.every((n) => n < next)).toBe(true);
  });

  test.each([
    ['its body is invalid (found while the part is prepared)', httpPart('POST engChangeNotices', { body: { sourceType: 'Nope' }, mime: { 'Content-ID': '3' } }), 400, 'Application_FieldValidationException'],
    ['a rule refuses it (inside the transaction)', httpPart(`POST engChangeOrders(${'$ECO'})/engChangeOrderTasks`, { body: { workCenterGroupCode: 'WC-ASM', subEngChangeOrderNo: 'ECO000002' }, mime: { 'Content-ID': '3' } }), 400, 'Application_DialogException'],
    ['its parent does not exist (inside the transaction)', httpPart('POST engChangeNotices(2f0c0a6e-1b2c-4d5e-8f90-0123456789ab)/engChangeNoticeComments', { body: { comment: 'x' }, mime: { 'Content-ID': '3' } }), 404, 'Internal_RecordNotFound'],
  ])('third part fails when %s: no row, no outbox event, one error for the change set', async (_, third, status, code) => {
    const before = await counts();
    const parts = partsOf(await sendMultipart([changeSet('c', [activeTask('1'), ecn('2'), third.replace('$ECO', ecoId)])]));
    expect(parts).toHaveLength(1);
    expect([parts[0]?.status, JSON.parse(parts[0]?.body ?? '{}').error.code]).toEqual([status, code]);
    expect(await counts()).toEqual(before);
  });

  test('JSON: the failed group answers the failure, and 424 for the others', async () => {
    const before = await counts();
    const r = await t.call('POST', '/$batch', {
      body: {
        requests: [
          { id: '1', atomicityGroup: 'g', method: 'post', url: `engChangeOrders(${ecoId})/engChangeOrderTasks`, body: { description: 'x', status: 'Active' } },
          { id: '2', atomicityGroup: 'g', method: 'post', url: 'engChangeNotices', body: NEW_ECN },
          { id: '3', atomicityGroup: 'g', method: 'post', url: 'engChangeNotices', body: { sourceType: 'Nope' } },
          { id: '4', dependsOn: ['g'], method: 'get', url: 'engChangeNotices/$count' },
          { id: '5', method: 'get', url: 'engChangeNotices/$count' },
        ],
      },
    });
    expect(r.json.responses.map((x: { id: string; status: number }) => [x.id, x.status])).toEqual([['1', 424], ['2', 424], ['3', 400], ['4', 424], ['5', 200]]);
    expect(await counts()).toEqual(before);
  });
});

describe('Content-ID references', () => {
  test('$1 in URLs of the same change set, then If-Match: $n with the ETag of an earlier response', async () => {
    const parts = partsOf(
      await sendMultipart([
        changeSet('c', [
          httpPart('POST engChangeNotices', { body: NEW_ECN, mime: { 'Content-ID': '1' } }),
          httpPart('POST $1/engChangeNoticeComments', { body: { comment: 'first' }, mime: { 'Content-ID': '2' } }),
          httpPart('PATCH $1', { body: { drawingNumber: 'DRW-1' }, headers: { 'If-Match': '*' }, mime: { 'Content-ID': '3' } }),
        ]),
        httpPart('GET $1?$select=drawingNumber', { mime: { 'Content-ID': '4' } }),
        httpPart('PATCH $1', { body: { drawingNumber: 'DRW-2' }, headers: { 'If-Match': '$4' }, mime: { 'Content-ID': '5' } }),
        httpPart('PATCH $1', { body: { drawingNumber: 'DRW-3' }, headers: { 'If-Match': '$4' }, mime: { 'Content-ID': '6' } }),
      ]),
    );
    expect(parts[0]?.parts?.map((p) => p.status)).toEqual([201, 201, 200]);
    const created = JSON.parse(parts[0]?.parts?.[0]?.body ?? '{}');
    const comment = JSON.parse(parts[0]?.parts?.[1]?.body ?? '{}');
    expect(comment.engChangeNoticeId).toBe(created.id);
    expect(JSON.parse(parts[1]?.body ?? '{}').drawingNumber).toBe('DRW-1');
    // $4's ETag was current for 5 and stale for 6 (5 changed the row): 200, then 412, and the batch stops there.
    expect(parts.slice(2).map((p) => p.status)).toEqual([200, 412]);
    expect((await t.call('GET', `/engChangeNotices(${created.id})`)).json.drawingNumber).toBe('DRW-2');
  });

  test('a reference to a request that failed → 424, the batch going on with continue-on-error', async () => {
    const parts = partsOf(
      await sendMultipart(
        [httpPart('POST engChangeNotices', { body: { sourceType: 'Nope' }, mime: { 'Content-ID': '1' } }), httpPart('POST $1/engChangeNoticeComments', { body: { comment: 'x' }, mime: { 'Content-ID': '2' } }), httpPart('GET engChangeNotices/$count')],
        { Prefer: 'odata.continue-on-error' },
      ),
    );
    expect(parts.map((p) => p.status)).toEqual([400, 424, 200]);
  });

  test('Location of a part inside the change set is its canonical URL, never $1', async () => {
    const parts = partsOf(await sendMultipart([changeSet('c', [httpPart('POST engChangeNotices', { body: NEW_ECN, mime: { 'Content-ID': '1' } }), httpPart('POST $1/engChangeNoticeComments', { body: { comment: 'x' }, mime: { 'Content-ID': '2' } })])]));
    for (const p of parts[0]?.parts ?? []) expect(p.headers['location']).toMatch(/^http:\/\/localhost\/api\/v2\.0\/companies\([0-9a-f-]+\)\/engChangeNotice(Comment)?s\([0-9a-f-]+\)$/);
  });
});

describe('failures: stop, or go on when asked', () => {
  const bad = (): string => httpPart('GET engChangeNotices(2f0c0a6e-1b2c-4d5e-8f90-0123456789ab)');
  const good = (): string => httpPart('GET engChangeNotices/$count');
  test('multipart stops at the first failure: it is the last response', async () => {
    expect(partsOf(await sendMultipart([good(), bad(), good(), httpPart('POST engChangeNotices', { body: NEW_ECN })])).map((p) => p.status)).toEqual([200, 404]);
  });
  test('with Prefer: odata.continue-on-error everything runs, and the preference is applied', async () => {
    const r = await sendMultipart([good(), bad(), good()], { Prefer: 'odata.continue-on-error' });
    expect(partsOf(r).map((p) => p.status)).toEqual([200, 404, 200]);
    expect(r.headers['Preference-Applied']).toBe('odata.continue-on-error=true');
  });
  test('JSON goes on by default, and stops with continue-on-error=false', async () => {
    const body = { requests: [{ id: 'a', method: 'get', url: 'engChangeNotices(2f0c0a6e-1b2c-4d5e-8f90-0123456789ab)' }, { id: 'b', method: 'get', url: 'engChangeNotices/$count' }] };
    expect((await t.call('POST', '/$batch', { body })).json.responses.map((x: { status: number }) => x.status)).toEqual([404, 200]);
    expect((await t.call('POST', '/$batch', { body, headers: { Prefer: 'continue-on-error=false' } })).json.responses.map((x: { status: number }) => x.status)).toEqual([404]);
  });
  test('an "if" condition is not supported: that request fails 424, the others run', async () => {
    const r = await t.call('POST', '/$batch', { body: { requests: [{ id: 'a', method: 'get', url: 'engChangeNotices/$count' }, { id: 'b', dependsOn: ['a'], if: '$a/$succeeded', method: 'get', url: 'engChangeNotices/$count' }] } });
    expect(r.json.responses.map((x: { status: number }) => x.status)).toEqual([200, 424]);
    expect(r.json.responses[1].body.error.message).toMatch(/"if" condition/);
  });
});

describe('each part is authorized as if sent alone, with the batch credentials', () => {
  test('a read-only user: the GETs answer, the writes are 403, a change set with a write changes nothing', async () => {
    const token = await t.token('KLEE');
    const before = await counts();
    const r = await sendMultipart(
      [httpPart('GET engChangeNotices/$count'), httpPart('POST engChangeNotices', { body: NEW_ECN }), changeSet('c', [httpPart(`PATCH engChangeOrderTasks(${ecoId})`, { body: { description: 'x' }, headers: { 'If-Match': '*' }, mime: { 'Content-ID': '1' } })]), httpPart('GET engChangeOrderTasks?$top=1')],
      { Prefer: 'odata.continue-on-error' },
      token,
    );
    const parts = partsOf(r);
    expect(parts.map((p) => p.status)).toEqual([200, 403, 403, 200]);
    expect(JSON.parse(parts[1]?.body ?? '{}').error.code).toBe('Authorization_PermissionDenied');
    expect(await counts()).toEqual(before);
  });

  test('a user of another company: a part addressing a company it has no grant in is 403, as alone', async () => {
    const cronus = (await t.call('GET', "/companies?$filter=name eq 'CRONUS'")).json.value[0].id as string;
    const [part] = partsOf(await sendMultipart([httpPart(`GET companies(${cronus})/engChangeNotices/$count`)], {}, await t.token('AUDITOR')));
    expect([part?.status, JSON.parse(part?.body ?? '{}').error.code]).toEqual([403, 'Authorization_CompanyAccessDenied']);
  });
});

describe('the same work through multipart and JSON gives the same rows', () => {
  const strip = (rows: Record<string, unknown>[]): Record<string, unknown>[] =>
    rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !['id', 'number', 'engChangeNoticeId', 'lastModifiedDateTime', '@odata.etag'].includes(k))));

  async function ecnWithComments(id: string): Promise<unknown> {
    const r = await t.call('GET', `/engChangeNotices(${id})?$expand=engChangeNoticeComments`);
    return { ...strip([r.json])[0], engChangeNoticeComments: strip(r.json.engChangeNoticeComments), '@odata.context': undefined };
  }

  test('create an ECN, two comments through $1, then change it', async () => {
    const m = partsOf(
      await sendMultipart([
        changeSet('c', [
          httpPart('POST engChangeNotices', { body: { ...NEW_ECN, drawingNumber: 'D-1' }, mime: { 'Content-ID': '1' } }),
          httpPart('POST $1/engChangeNoticeComments', { body: { comment: 'one' }, mime: { 'Content-ID': '2' } }),
          httpPart('POST $1/engChangeNoticeComments', { body: { comment: 'two' }, mime: { 'Content-ID': '3' } }),
        ]),
        httpPart('PATCH $1', { body: { drawingTypeCode: 'CAD', status: 'Approved' }, headers: { 'If-Match': '*' }, mime: { 'Content-ID': '4' } }),
      ]),
    );
    const j = await t.call('POST', '/$batch', {
      body: {
        requests: [
          { id: '1', atomicityGroup: 'g', method: 'post', url: 'engChangeNotices', body: { ...NEW_ECN, drawingNumber: 'D-1' } },
          { id: '2', atomicityGroup: 'g', method: 'post', url: '$1/engChangeNoticeComments', body: { comment: 'one' } },
          { id: '3', atomicityGroup: 'g', method: 'post', url: '$1/engChangeNoticeComments', body: { comment: 'two' } },
          { id: '4', dependsOn: ['g'], method: 'patch', url: '$1', headers: { 'if-match': '*' }, body: { drawingTypeCode: 'CAD', status: 'Approved' } },
        ],
      },
    });
    expect(j.json.responses.map((x: { status: number }) => x.status)).toEqual([201, 201, 201, 200]);
    expect(m.map((p) => p.status)).toEqual([0, 200]);
    const viaMultipart = await ecnWithComments(JSON.parse(m[0]?.parts?.[0]?.body ?? '{}').id);
    const viaJson = await ecnWithComments(j.json.responses[0].body.id);
    expect(viaJson).toEqual(viaMultipart);
    expect(viaJson).toMatchObject({ drawingNumber: 'D-1', drawingTypeCode: 'CAD', status: 'Approved', engChangeNoticeComments: [{ comment: 'one', lineNo: 10000 }, { comment: 'two', lineNo: 20000 }] });
  });
});
