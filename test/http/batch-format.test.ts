/**
 * `$batch` bodies as clients send them, valid and malformed, in both formats (OData 4.0 Part 1 §11.7,
 * JSON Format §19, conventions §8). Every malformed batch below also holds a valid POST before its
 * problem: a 400 naming the problem and no new row prove that nothing of it ran.
 */
import { startTestService, type TestService, type TestResponse } from '../helpers/test-service.js';
import { changeSet, httpPart, multipart, readMultipart } from '../helpers/batch-bodies.js';

let t: TestService;
let ecnId: string;
let adminToken: string;
beforeAll(async () => {
  t = await startTestService();
  adminToken = await t.token('ADMIN');
  ecnId = (await t.call('GET', '/engChangeNotices?$top=1&$select=id')).json.value[0].id;
});
afterAll(() => t.close());

const NEW_ECN = { sourceType: 'Item', sourceNumber: 'ITM-1000', changeReasonCode: 'DESIGN' };
const MP = 'multipart/mixed; boundary=b';
const post = (): string => httpPart('POST engChangeNotices', { body: NEW_ECN });

async function ecnCount(): Promise<number> {
  return Number((await t.call('GET', '/engChangeNotices/$count')).text);
}

function sendMultipart(body: string, contentType = MP, headers: Record<string, string> = {}): Promise<TestResponse> {
  return t.call('POST', '/$batch', { body, headers: { 'Content-Type': contentType, ...headers }, token: adminToken });
}

describe('valid multipart batches', () => {
  const cases: [string, () => string, string][] = [
    ['a GET relative to the service root', () => multipart('b', [httpPart(`GET engChangeNotices(${ecnId})?$select=number`)]), MP],
    ['a GET with an absolute URL', () => multipart('b', [httpPart(`GET http://localhost/api/v2.0/engChangeNotices(${ecnId})`)]), MP],
    ['a GET with an absolute path and Host', () => multipart('b', [httpPart(`GET /api/v2.0/engChangeNotices(${ecnId})`, { headers: { Host: 'localhost' } })]), MP],
    ['a request line without the HTTP version (the spec example)', () => multipart('b', [httpPart(`GET engChangeNotices(${ecnId}) `).replace(' HTTP/1.1', '')]), MP],
    ['$metadata and the service document', () => multipart('b', [httpPart('GET $metadata'), httpPart('GET ./'), httpPart('GET /api/v2.0/')]), MP],
    ['a preamble and an epilogue', () => `This is a preamble.\r\n${multipart('b', [httpPart(`GET engChangeNotices(${ecnId})`)])}epilogue text`, MP],
    ['bare LF line ends', () => multipart('b', [httpPart(`GET engChangeNotices(${ecnId})`)]).replace(/\r\n/g, '\n'), MP],
    ['transport padding after the delimiters', () => multipart('b', [httpPart(`GET engChangeNotices(${ecnId})`)]).replace(/--b\r\n/g, '--b  \r\n'), MP],
    ['a quoted boundary with a space', () => multipart('b x', [httpPart(`GET engChangeNotices(${ecnId})`)]), 'multipart/mixed; boundary="b x"'],
    ['a change set with a Content-ID reference', () => multipart('b', [changeSet('c', [httpPart('POST engChangeNotices', { body: NEW_ECN, mime: { 'Content-ID': '1' } }), httpPart('POST $1/engChangeNoticeComments', { body: { comment: 'c' }, mime: { 'Content-ID': '2' } })])]), MP],
    ['Content-ID in the request headers', () => multipart('b', [changeSet('c', [httpPart('POST engChangeNotices', { body: NEW_ECN, headers: { 'Content-ID': 'x' } }), httpPart('POST $x/engChangeNoticeComments', { body: { comment: 'c' }, headers: { 'Content-ID': 'y' } })])]), MP],
    ['a part with Content-Length and a trailing line', () => multipart('b', [httpPart('POST engChangeNotices', { headers: { 'Content-Type': 'application/json', 'Content-Length': String(JSON.stringify(NEW_ECN).length) }, body: `${JSON.stringify(NEW_ECN)}\r\n` })]), MP],
    ['an empty batch', () => '--b--\r\n', MP],
    ["a part with a copy of the batch's own Authorization (as OpenUI5 sends)", () => multipart('b', [httpPart(`GET engChangeNotices(${ecnId})`, { headers: { Authorization: `Bearer ${adminToken}` } })]), MP],
  ];
  test.each(cases)('%s → 200, every part 2xx', async (_, body, contentType) => {
    const r = await sendMultipart(body(), contentType);
    expect(r.status).toBe(200);
    expect(r.headers['Content-Type']).toMatch(/^multipart\/mixed; boundary=batchresponse_/);
    const parts = readMultipart(r.headers['Content-Type'] as string, r.text).flatMap((p) => p.parts ?? [p]);
    for (const p of parts) expect([p.status, p.body]).toEqual([expect.any(Number), expect.any(String)]);
    expect(parts.every((p) => p.status >= 200 && p.status < 300)).toBe(true);
  });
});

describe('malformed multipart batches → 400 naming the problem, nothing persisted', () => {
  const cases: [string, () => string, RegExp, string][] = [
    ['no boundary parameter', () => multipart('b', [post()]), /without a boundary parameter/, 'multipart/mixed'],
    ['a boundary with invalid characters', () => multipart('b', [post()]), /not a valid MIME boundary/, 'multipart/mixed; boundary=b{}'],
    ['a body without the boundary', () => multipart('x', [post()]), /has no line '--b'/, MP],
    ['no closing delimiter', () => `--b\r\n${post()}\r\n--b\r\n${post()}`, /ends without its closing delimiter '--b--'/, MP],
    ['a part without Content-Type', () => multipart('b', [post(), `Content-ID: 1\r\n\r\nGET engChangeNotices HTTP/1.1\r\n\r\n`]), /Part 2 has no Content-Type header/, MP],
    ['a part of another content type', () => multipart('b', [post(), `Content-Type: text/plain\r\n\r\nGET engChangeNotices HTTP/1.1\r\n\r\n`]), /Part 2 has Content-Type 'text\/plain'/, MP],
    ['a part without a request line', () => multipart('b', [post(), 'Content-Type: application/http\r\n\r\n']), /Part 2 has no request line/, MP],
    ['a request line without a URL', () => multipart('b', [post(), 'Content-Type: application/http\r\n\r\nGET\r\n\r\n']), /Part 2 has no valid request line: 'GET'/, MP],
    ['a space in a URL', () => multipart('b', [post(), 'Content-Type: application/http\r\n\r\nGET engChangeNotices?$filter=status eq 1 HTTP/1.1\r\n\r\n']), /%20/, MP],
    ['an HTTP/2 request line', () => multipart('b', [post(), 'Content-Type: application/http\r\n\r\nGET engChangeNotices HTTP/2.0\r\n\r\n']), /HTTP\/2\.0 request/, MP],
    ['a URL on another host', () => multipart('b', [post(), httpPart('GET http://elsewhere.example/api/v2.0/engChangeNotices')]), /outside this service/, MP],
    ['an absolute path outside the service root', () => multipart('b', [post(), httpPart('GET /api/v1.0/engChangeNotices')]), /outside this service/, MP],
    ['a relative path above the service root', () => multipart('b', [post(), httpPart('GET ../v1.0/engChangeNotices')]), /outside this service/, MP],
    ['a nested batch', () => multipart('b', [post(), httpPart('POST $batch')]), /cannot contain another batch/, MP],
    ['a change set inside a change set', () => multipart('b', [changeSet('c', [post(), changeSet('d', [post()])])]), /change sets cannot nest/, MP],
    ['a GET inside a change set', () => multipart('b', [changeSet('c', [post(), httpPart('GET engChangeNotices')])]), /GET inside a change set/, MP],
    ['a change set without a boundary', () => multipart('b', [post(), `Content-Type: multipart/mixed\r\n\r\n--c\r\n${post()}\r\n--c--`]), /change set of part 2 .*without a boundary/, MP],
    ['a repeated Content-ID', () => multipart('b', [changeSet('c', [httpPart('POST engChangeNotices', { body: NEW_ECN, mime: { 'Content-ID': '1' } }), httpPart('POST engChangeNotices', { body: NEW_ECN, mime: { 'Content-ID': '1' } })])]), /repeats the request id '1'/, MP],
    ['a reference to an unknown Content-ID', () => multipart('b', [changeSet('c', [httpPart('POST engChangeNotices', { body: NEW_ECN, mime: { 'Content-ID': '1' } }), httpPart('POST $9/engChangeNoticeComments', { body: { comment: 'x' }, mime: { 'Content-ID': '2' } })])]), /refers to \$9: no request before it has the id '9'/, MP],
    ['a forward reference', () => multipart('b', [changeSet('c', [httpPart('POST $2/engChangeNoticeComments', { body: { comment: 'x' }, mime: { 'Content-ID': '1' } }), httpPart('POST engChangeNotices', { body: NEW_ECN, mime: { 'Content-ID': '2' } })])]), /refers to \$2/, MP],
    ['other credentials in a part', () => multipart('b', [post(), httpPart('GET engChangeNotices', { headers: { Authorization: 'Bearer other' } })]), /carries other credentials \(its own Authorization header\)/, MP],
    ['a base64 transfer encoding', () => multipart('b', [post(), httpPart('GET engChangeNotices', { mime: { 'Content-Transfer-Encoding': 'base64' } })]), /Content-Transfer-Encoding 'base64'/, MP],
    ['a Content-Length past the body', () => multipart('b', [post(), httpPart('POST engChangeNotices', { headers: { 'Content-Type': 'application/json', 'Content-Length': '999' }, body: '{}' })]), /Content-Length 999, but its body has 2 bytes/, MP],
    ['a chunked part', () => multipart('b', [post(), httpPart('POST engChangeNotices', { headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }, body: '2\r\n{}\r\n0\r\n' })]), /Transfer-Encoding/, MP],
    ['a header line without a colon', () => multipart('b', [post(), 'Content-Type: application/http\r\nnot a header\r\n\r\nGET engChangeNotices HTTP/1.1\r\n\r\n']), /header line that is not 'Name: value'/, MP],
    ['an If-Match reference to nothing', () => multipart('b', [post(), httpPart(`PATCH engChangeNotices(${ecnId})`, { headers: { 'If-Match': '$7' }, body: { drawingNumber: 'D' } })]), /If-Match of part 2 refers to \$7/, MP],
    ['more requests than limits.maxBatchParts', () => multipart('b', Array.from({ length: 101 }, post)), /more than 100 requests \(limits\.maxBatchParts in service\.json\)/, MP],
    ['an empty body', () => '', /has no body/, MP],
  ];
  test.each(cases)('%s', async (_, body, message, contentType) => {
    const before = await ecnCount();
    const r = await sendMultipart(body(), contentType);
    expect([r.status, r.json?.error?.code]).toEqual([400, 'BadRequest']);
    expect(r.json.error.message).toMatch(message);
    expect(await ecnCount()).toBe(before);
  });
});

describe('JSON batches', () => {
  test('valid: ids, atomicity group, dependsOn, headers, a text body; answered in JSON', async () => {
    const r = await t.call('POST', '/$batch', {
      body: {
        requests: [
          { id: 'r', method: 'get', url: `engChangeNotices(${ecnId})?$select=number`, headers: { Accept: 'application/json' } },
          { id: 'n', atomicityGroup: 'g', method: 'POST', url: '/api/v2.0/engChangeNotices', body: NEW_ECN },
          { id: 'c', atomicityGroup: 'g', dependsOn: ['n'], method: 'post', url: '$n/engChangeNoticeComments', body: { comment: 'x' } },
          { id: 'q', dependsOn: ['g'], method: 'get', url: '$n/engChangeNoticeComments/$count' },
        ],
      },
    });
    expect(r.status).toBe(200);
    expect(r.headers['Content-Type']).toBe('application/json');
    const responses = r.json.responses as { id: string; atomicityGroup?: string; status: number; body: unknown }[];
    expect(responses.map((x) => [x.id, x.atomicityGroup, x.status])).toEqual([
      ['r', undefined, 200],
      ['n', 'g', 201],
      ['c', 'g', 201],
      ['q', undefined, 200],
    ]);
    expect(responses[3]?.body).toBe('1');
  });

  test('a JSON batch answered as multipart when Accept asks for it, with Content-IDs', async () => {
    const r = await t.call('POST', '/$batch', { body: { requests: [{ id: 'one', method: 'get', url: `engChangeNotices(${ecnId})` }] }, headers: { Accept: 'multipart/mixed' } });
    expect(r.status).toBe(200);
    const [part] = readMultipart(r.headers['Content-Type'] as string, r.text);
    expect([part?.contentId, part?.status]).toEqual(['one', 200]);
  });

  const request = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ id: 'p', method: 'post', url: 'engChangeNotices', body: NEW_ECN, ...extra });
  const cases: [string, unknown, RegExp][] = [
    ['not JSON', '{"requests": [', /not valid JSON/],
    ['no requests array', { request: [] }, /"requests" array/],
    ['an unknown top-level member', { requests: [], continue: true }, /"continue" is not known/],
    ['a request that is not an object', { requests: [request(), 'GET x'] }, /request 2 of the batch is not an object/],
    ['a request without an id', { requests: [request(), { method: 'get', url: 'engChangeNotices' }] }, /request 2 of the batch has no "id"/],
    ['an unknown method', { requests: [request(), { id: 'x', method: 'merge', url: 'engChangeNotices' }] }, /"method" of request 'x' must be one of/],
    ['no url', { requests: [request(), { id: 'x', method: 'get' }] }, /"url" of request 'x' is missing/],
    ['an unknown member', { requests: [request(), { id: 'x', method: 'get', url: 'engChangeNotices', atomicitygroup: 'g' }] }, /has the member "atomicitygroup"/],
    ['a repeated id', { requests: [request(), request()] }, /repeats the request id 'p'/],
    ['an id that names an atomicity group', { requests: [request({ atomicityGroup: 'x' }), { id: 'x', method: 'get', url: 'engChangeNotices' }] }, /id 'x', which also names an atomicity group/],
    ['dependsOn an unknown id', { requests: [request(), { id: 'x', method: 'get', url: 'engChangeNotices', dependsOn: ['nope'] }] }, /depends on 'nope', which is no request/],
    ['dependsOn a later request', { requests: [request({ dependsOn: ['x'] }), { id: 'x', method: 'get', url: 'engChangeNotices' }] }, /depends on 'x'/],
    ['dependsOn its own atomicity group', { requests: [request({ atomicityGroup: 'g', dependsOn: ['g'] })] }, /depends on 'g'/],
    ['an atomicity group split in two', { requests: [request({ atomicityGroup: 'g' }), { id: 'x', method: 'get', url: 'engChangeNotices' }, request({ id: 'q', atomicityGroup: 'g' })] }, /atomicity group 'g' are not adjacent/],
    ['a GET with a body', { requests: [request(), { id: 'x', method: 'get', url: 'engChangeNotices', body: {} }] }, /GET with a body/],
    ['headers that are not strings', { requests: [request(), { id: 'x', method: 'get', url: 'engChangeNotices', headers: { Accept: 1 } }] }, /header "Accept" of request 'x' must have a string value/],
    ['a GET inside an atomicity group', { requests: [request({ atomicityGroup: 'g' }), { id: 'x', atomicityGroup: 'g', method: 'get', url: 'engChangeNotices' }] }, /GET inside a change set/],
    ['a URL outside the service', { requests: [request(), { id: 'x', method: 'get', url: 'https://elsewhere.example/engChangeNotices' }] }, /outside this service/],
    ['a nested batch', { requests: [request(), { id: 'x', method: 'post', url: '$batch', body: { requests: [] } }] }, /cannot contain another batch/],
    ['other credentials in a request', { requests: [request(), { id: 'x', method: 'get', url: 'engChangeNotices', headers: { authorization: 'Basic eDp5' } }] }, /carries other credentials/],
    ['a reference to an unknown id', { requests: [request(), { id: 'x', method: 'post', url: '$q/engChangeNoticeComments', body: {} }] }, /refers to \$q/],
    ['a binary body that is not base64url', { requests: [request(), { id: 'x', method: 'put', url: 'engChangeOrders(00000000-0000-0000-0000-000000000000)/changeDescription', headers: { 'content-type': 'application/octet-stream' }, body: 'not base64!' }] }, /not base64url/],
    ['more requests than limits.maxBatchParts', { requests: Array.from({ length: 101 }, (_, i) => request({ id: `r${i}` })) }, /more than 100 requests/],
  ];
  test.each(cases)('malformed: %s → 400, nothing persisted', async (_, body, message) => {
    const before = await ecnCount();
    const r = await t.call('POST', '/$batch', { body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
    expect([r.status, r.json?.error?.code]).toEqual([400, 'BadRequest']);
    expect(r.json.error.message).toMatch(message);
    expect(await ecnCount()).toBe(before);
  });
});

describe('the batch request itself', () => {
  test.each([
    ['GET on $batch', 'GET', undefined, {}, 405],
    ['a body of another type', 'POST', 'x', { 'Content-Type': 'text/plain' }, 415],
    ['an Accept the service cannot answer', 'POST', '{"requests":[]}', { 'Content-Type': 'application/json', Accept: 'text/html' }, 406],
  ])('%s → %i', async (_, method, body, headers, status) => {
    const r = await t.call(method, '/$batch', { ...(body === undefined ? {} : { body }), headers });
    expect(r.status).toBe(status);
  });

  test('a system query option on $batch → 400', async () => {
    const r = await t.call('POST', '/$batch?$top=1', { body: '{"requests":[]}', headers: { 'Content-Type': 'application/json' } });
    expect([r.status, r.json.error.message]).toEqual([400, expect.stringMatching(/\$batch takes no system query option \('\$top'\)/)]);
  });

  test('no credentials → 401, like any request', async () => {
    const r = await t.call('POST', '/$batch', { body: '{"requests":[]}', headers: { 'Content-Type': 'application/json' }, token: null });
    expect(r.status).toBe(401);
  });
});
