/**
 * If-None-Match (OData 4.01 Part 1 §8.2.5, RFC 9110 §13.1.2), on both engines: a GET or HEAD whose
 * If-None-Match is `*` or lists the current ETag of what it reads answers 304 Not Modified with the
 * ETag and no body, where the row alone makes the answer (no computed property, no $expand); a change (PATCH, PUT, DELETE, media PUT, bound action) whose If-None-Match is `*`
 * or lists the current ETag answers 412 and changes nothing. If-Match is checked first and stays
 * required where it was (428).
 */
import request from 'supertest';
import { createExpressApp } from '../../src/http/express-app.js';
import { REPO_METADATA, startTestService, type TestService } from '../helpers/test-service.js';

/** The opaque part of a weak ETag, as a strong tag: If-None-Match compares weakly, so it matches too. */
const strong = (etag: string): string => etag.replace(/^W\//, '');

describe('If-None-Match', () => {
  let t: TestService;
  let c: string;
  beforeAll(async () => {
    t = await startTestService({ metadataDir: REPO_METADATA });
    c = `/companies(${t.companyIds[0]})`;
  });
  afterAll(() => t.close());

  const newEcn = async (): Promise<{ id: string; etag: string }> => {
    const r = await t.call('POST', `${c}/engChangeNotices`, { body: { drawingNumber: 'D-1' } });
    expect(r.status).toBe(201);
    return { id: r.json.id, etag: r.headers['ETag'] as string };
  };

  test('GET of an entity: 304 with the ETag and no body when it lists the current ETag or is *, 200 otherwise', async () => {
    const { id, etag } = await newEcn();
    // Only properties kept in the row: the row's version (the ETag) then identifies the answer.
    const url = `${c}/engChangeNotices(${id})?$select=id,number,drawingNumber`;
    const plain = await t.call('GET', url);
    expect(plain.status).toBe(200);
    expect(plain.headers['ETag']).toBe(etag);
    for (const header of [etag, '*', `W/"other", ${etag}`, strong(etag)]) {
      const r = await t.call('GET', url, { headers: { 'If-None-Match': header } });
      expect([header, r.status, r.text, r.headers['ETag'], r.headers['Content-Type']]).toEqual([header, 304, '', etag, undefined]);
    }
    const other = await t.call('GET', url, { headers: { 'If-None-Match': 'W/"other"' } });
    expect([other.status, other.json.id, other.headers['ETag']]).toEqual([200, id, etag]);
    // After a change the old ETag no longer matches: the new version comes back.
    const patched = await t.call('PATCH', `${c}/engChangeNotices(${id})`, { body: { drawingNumber: 'D-2' }, headers: { 'If-Match': etag } });
    expect(patched.status).toBe(200);
    const again = await t.call('GET', url, { headers: { 'If-None-Match': etag } });
    expect([again.status, again.json.drawingNumber, again.headers['ETag']]).toEqual([200, 'D-2', patched.headers['ETag']]);
    expect(again.headers['ETag']).not.toBe(etag);
  });

  test('an answer with properties computed from other rows, or with $expand, is sent in full whatever If-None-Match says', async () => {
    const { id, etag } = await newEcn();
    const url = `${c}/engChangeNotices(${id})`;
    const before = await t.call('GET', url, { headers: { 'If-None-Match': etag } });
    expect([before.status, before.json.bomCommentExists]).toEqual([200, false]);
    // Why: a comment changes bomCommentExists, not the ECN's row version.
    expect((await t.call('POST', `${url}/engChangeNoticeComments`, { body: { comment: 'new' } })).status).toBe(201);
    const after = await t.call('GET', url, { headers: { 'If-None-Match': etag } });
    expect([after.status, after.json.bomCommentExists, after.headers['ETag']]).toEqual([200, true, etag]);
    const expanded = await t.call('GET', `${url}?$select=number&$expand=engChangeNoticeComments`, { headers: { 'If-None-Match': '*' } });
    expect([expanded.status, expanded.json.engChangeNoticeComments.length]).toEqual([200, 1]);
    expect((await t.call('GET', `${url}?$select=number,bomExists`, { headers: { 'If-None-Match': etag } })).status).toBe(200);
  });

  test('GET with an If-Match that lists another ETag: 412', async () => {
    const { id, etag } = await newEcn();
    const url = `${c}/engChangeNotices(${id})`;
    const r = await t.call('GET', url, { headers: { 'If-Match': 'W/"other"' } });
    expect([r.status, r.json.error.code]).toEqual([412, 'Request_EntityChanged']);
    expect((await t.call('GET', url, { headers: { 'If-Match': etag } })).status).toBe(200);
  });

  test('a collection has no ETag: its GET is not conditional', async () => {
    for (const headers of [{ 'If-None-Match': '*' }, { 'If-Match': 'W/"other"' }] as Record<string, string>[]) {
      const r = await t.call('GET', `${c}/engChangeNotices?$top=2`, { headers });
      expect(r.status).toBe(200);
      expect(r.json.value).toHaveLength(2);
    }
  });

  test('the media value: 304 for its ETag', async () => {
    const [task] = (await t.call('GET', `${c}/engChangeOrderTasks?$top=1`)).json.value;
    const url = `${c}/engChangeOrders(${task.engChangeOrderId})/changeDescription`;
    const put = await t.call('PUT', url, { body: Buffer.from('Increase bore to 14 mm.'), headers: { 'Content-Type': 'text/plain', 'If-Match': '*' } });
    expect(put.status).toBe(204);
    const etag = put.headers['ETag'] as string;
    const r = await t.call('GET', url, { headers: { 'If-None-Match': etag } });
    expect([r.status, r.text, r.headers['ETag']]).toEqual([304, '', etag]);
    expect((await t.call('GET', url, { headers: { 'If-None-Match': 'W/"x"' } })).text).toBe('Increase bore to 14 mm.');
  });

  test('PATCH: 412 and nothing changed when If-None-Match is * or the current ETag; a stale one lets it through; If-Match is still required', async () => {
    const { id, etag } = await newEcn();
    const url = `${c}/engChangeNotices(${id})`;
    for (const headers of [{ 'If-Match': '*', 'If-None-Match': '*' }, { 'If-Match': etag, 'If-None-Match': etag }, { 'If-Match': '*', 'If-None-Match': `W/"a", ${strong(etag)}` }]) {
      const r = await t.call('PATCH', url, { body: { drawingNumber: 'changed' }, headers });
      expect([r.status, r.json.error.code]).toEqual([412, 'Request_EntityChanged']);
      expect(r.json.error.message).toMatch(/If-None-Match/);
    }
    // Without If-Match the request is refused for that first (428), whatever If-None-Match says.
    const noIfMatch = await t.call('PATCH', url, { body: { drawingNumber: 'changed' }, headers: { 'If-None-Match': 'W/"a"' } });
    expect([noIfMatch.status, noIfMatch.json.error.code]).toEqual([428, 'BadRequest_InvalidToken']);
    // A stale If-Match is reported as such before If-None-Match is looked at.
    const stale = await t.call('PATCH', url, { body: { drawingNumber: 'changed' }, headers: { 'If-Match': 'W/"a"', 'If-None-Match': '*' } });
    expect([stale.status, stale.json.error.message]).toEqual([412, 'Another user has already changed the record.']);
    const unchanged = await t.call('GET', url);
    expect([unchanged.json.drawingNumber, unchanged.headers['ETag']]).toEqual(['D-1', etag]);
    const ok = await t.call('PATCH', url, { body: { drawingNumber: 'changed' }, headers: { 'If-Match': etag, 'If-None-Match': 'W/"a"' } });
    expect([ok.status, ok.json.drawingNumber]).toEqual([200, 'changed']);
  });

  test('DELETE: 412 with If-None-Match * (the entity is kept), 204 with a stale one', async () => {
    const { id } = await newEcn();
    const comment = await t.call('POST', `${c}/engChangeNotices(${id})/engChangeNoticeComments`, { body: { comment: 'keep me' } });
    expect(comment.status).toBe(201);
    const url = `${c}/engChangeNoticeComments(${comment.json.id})`;
    const refused = await t.call('DELETE', url, { headers: { 'If-None-Match': '*' } });
    expect([refused.status, refused.json.error.code]).toEqual([412, 'Request_EntityChanged']);
    expect((await t.call('GET', url)).status).toBe(200);
    expect((await t.call('DELETE', url, { headers: { 'If-None-Match': 'W/"a"' } })).status).toBe(204);
    expect((await t.call('GET', url)).status).toBe(404);
  });

  test('media PUT and a bound action: 412 and nothing changed', async () => {
    const [task] = (await t.call('GET', `${c}/engChangeOrderTasks?$top=1`)).json.value;
    const media = `${c}/engChangeOrders(${task.engChangeOrderId})/changeDescription`;
    await t.call('PUT', media, { body: Buffer.from('before'), headers: { 'Content-Type': 'text/plain', 'If-Match': '*' } });
    const put = await t.call('PUT', media, { body: Buffer.from('after'), headers: { 'Content-Type': 'text/plain', 'If-Match': '*', 'If-None-Match': '*' } });
    expect(put.status).toBe(412);
    expect((await t.call('GET', media)).text).toBe('before');

    const { id, etag } = await newEcn();
    const approved = await t.call('PATCH', `${c}/engChangeNotices(${id})`, { body: { status: 'Approved' }, headers: { 'If-Match': etag } });
    expect(approved.status).toBe(200);
    const ecos = async (): Promise<number> => (await t.query('SELECT "id" FROM "engChangeOrders"')).length;
    const before = await ecos();
    const action = await t.call('POST', `${c}/engChangeNotices(${id})/Microsoft.NAV.createEngChangeOrder`, { headers: { 'If-None-Match': approved.headers['ETag'] as string } });
    expect([action.status, action.json.error.code]).toEqual([412, 'Request_EntityChanged']);
    expect(await ecos()).toBe(before);
    expect((await t.call('POST', `${c}/engChangeNotices(${id})/Microsoft.NAV.createEngChangeOrder`, { headers: { 'If-None-Match': 'W/"a"' } })).status).toBe(200);
    expect(await ecos()).toBe(before + 1);
  });

  test('in a $batch: If-None-Match $1 (the ETag of request 1) makes the second GET a 304', async () => {
    const { id } = await newEcn();
    const requests = [
      { id: '1', method: 'GET', url: `companies(${t.companyIds[0]})/engChangeNotices(${id})?$select=number` },
      { id: '2', dependsOn: ['1'], method: 'GET', url: `companies(${t.companyIds[0]})/engChangeNotices(${id})?$select=number`, headers: { 'if-none-match': '$1' } },
    ];
    const r = await t.call('POST', '/$batch', { body: { requests } });
    expect(r.status).toBe(200);
    const [first, second] = r.json.responses as { id: string; status: number; body?: unknown; headers?: Record<string, string> }[];
    expect([first?.status, second?.status, second?.body]).toEqual([200, 304, undefined]);
    expect(second?.headers).toEqual({ etag: first?.headers?.['etag'] });
    expect(first?.headers?.['etag']).toMatch(/^W\/"/);
    // The multipart format: the part's status line and ETag, no body.
    const etag = first?.headers?.['etag'] as string;
    const part = `GET companies(${t.companyIds[0]})/engChangeNotices(${id})?$select=number HTTP/1.1\r\nIf-None-Match: ${etag}\r\n\r\n`;
    const body = `--b\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n${part}\r\n--b--\r\n`;
    const multipart = await t.call('POST', '/$batch', { body: Buffer.from(body), headers: { 'Content-Type': 'multipart/mixed;boundary=b' } });
    expect(multipart.status).toBe(200);
    expect(multipart.text).toContain(`\r\n\r\nHTTP/1.1 304 Not Modified\r\nETag: ${etag}\r\nOData-Version: 4.0\r\n\r\n\r\n--batchresponse_`);
  });

  test('in a $batch a 304 is not a failure: the parts after it run, and one that depends on it too', async () => {
    const { id, etag } = await newEcn();
    const other = await newEcn();
    const url = (key: string): string => `companies(${t.companyIds[0]})/engChangeNotices(${key})?$select=number`;
    // Multipart stops at the first failure unless continue-on-error is asked for: the 304 must not stop it.
    const part = (key: string, extra: string): string => `--b\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nGET ${url(key)} HTTP/1.1\r\n${extra}\r\n`;
    const body = `${part(id, `If-None-Match: ${etag}\r\n`)}${part(other.id, '')}--b--\r\n`;
    const multipart = await t.call('POST', '/$batch', { body: Buffer.from(body), headers: { 'Content-Type': 'multipart/mixed;boundary=b' } });
    expect(multipart.text.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 304', 'HTTP/1.1 200']);
    const requests = [
      { id: '1', method: 'GET', url: url(id), headers: { 'if-none-match': etag } },
      { id: '2', dependsOn: ['1'], method: 'GET', url: url(other.id) },
      { id: '3', method: 'GET', url: '$1' },
    ];
    const json = await t.call('POST', '/$batch', { body: { requests } });
    expect((json.json.responses as { id: string; status: number }[]).map((r) => [r.id, r.status])).toEqual([['1', 304], ['2', 200], ['3', 200]]);
  });

  test('through the HTTP listener: GET and HEAD answer 304 with no body', async () => {
    const { id, etag } = await newEcn();
    const app = createExpressApp(t.service);
    const auth = `Bearer ${await t.token('ADMIN')}`;
    const url = `/api/v2.0${c}/engChangeNotices(${id})?$select=number,status`;
    const get = await request(app).get(url).set('Authorization', auth).set('If-None-Match', etag);
    expect([get.status, get.text ?? '', get.headers['etag'], get.headers['odata-version']]).toEqual([304, '', etag, '4.0']);
    const head = await request(app).head(url).set('Authorization', auth).set('If-None-Match', etag);
    expect([head.status, head.headers['etag']]).toEqual([304, etag]);
    expect((await request(app).get(url).set('Authorization', auth).set('If-None-Match', 'W/"x"')).status).toBe(200);
  });
});
