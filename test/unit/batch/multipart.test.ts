/**
 * MIME multipart framing (RFC 2046 §5.1.1) as the batch parser uses it: preamble and epilogue
 * ignored, transport padding, CRLF or bare LF, the close delimiter, lines that only start like a
 * delimiter kept as content, header blocks with folded lines, and the boundary parameter.
 */
import { boundaryOf, contentTypeParameter, parseMultipart, writeMultipart } from '../../../src/batch/multipart.js';
import { parseHttpRequest, httpResponseBytes } from '../../../src/batch/http-message.js';
import { BatchFormatError } from '../../../src/errors/odata-error.js';

const parse = (text: string, boundary = 'b', max = 10): { headers: Record<string, string>; content: string }[] =>
  parseMultipart(Buffer.from(text, 'latin1'), boundary, 'the batch', max, () => new Error('too many')).map((p) => ({ headers: { ...p.headers }, content: p.content.toString('latin1') }));

test('parts, their headers and content; preamble and epilogue ignored', () => {
  expect(parse('preamble\r\n--b\r\nA: 1\r\n\r\nfirst\r\n--b\r\nB: 2\r\nB: 3\r\n\r\nsecond\r\nline\r\n--b--\r\nepilogue\r\n--b\r\nC: 4\r\n\r\nnot a part')).toEqual([
    { headers: { a: '1' }, content: 'first' },
    { headers: { b: '2, 3' }, content: 'second\r\nline' },
  ]);
});

test('bare LF line ends, transport padding, a folded header, an empty part', () => {
  expect(parse('--b \t\nX-Long: one\n two\n\nbody\n--b\n\n\n--b--')).toEqual([
    { headers: { 'x-long': 'one two' }, content: 'body' },
    { headers: {}, content: '' },
  ]);
});

test('a line that only starts with the delimiter is content; bytes pass through unchanged', () => {
  const bytes = Buffer.from([0x00, 0xff, 0xc3, 0xa9]).toString('latin1');
  expect(parse(`--b\r\n\r\n--bX is not a delimiter\r\n${bytes}\r\n--b--`)).toEqual([{ headers: {}, content: `--bX is not a delimiter\r\n${bytes}` }]);
});

test.each([
  ['no delimiter at all', 'just text', /has no line '--b'/],
  ['a delimiter not at the start of a line', 'x--b\r\n\r\nbody --b--', /has no line '--b'/],
  ['no close delimiter', '--b\r\n\r\nbody\r\n', /ends without its closing delimiter '--b--' \(part 1, from byte 5/],
  ['a header line without a colon', '--b\r\nnope\r\n\r\n\r\n--b--', /Part 1 of the batch has a header line that is not 'Name: value': 'nope'/],
  ['headers without the empty line after them', '--b\r\nA: 1\r\n--b--', /Part 1 of the batch has no empty line after its headers/],
])('%s → BatchFormatError', (_, text, message) => {
  expect(() => parse(text)).toThrow(message);
  expect(() => parse(text)).toThrow(BatchFormatError);
});

test('the part count is bounded while parsing', () => {
  expect(() => parse('--b\r\n\r\n\r\n--b\r\n\r\n\r\n--b\r\n\r\n\r\n--b--', 'b', 2)).toThrow('too many');
});

test('boundary parameters: quoted, unquoted, missing, invalid', () => {
  expect(boundaryOf('multipart/mixed; boundary=batch_1', 'x')).toBe('batch_1');
  expect(boundaryOf('multipart/mixed;charset=utf-8; BOUNDARY="a b:c"', 'x')).toBe('a b:c');
  expect(contentTypeParameter('a/b; x="q\\"uote"', 'x')).toBe('q"uote');
  expect(() => boundaryOf('multipart/mixed', 'the batch')).toThrow(/without a boundary parameter/);
  expect(() => boundaryOf(`multipart/mixed; boundary=${'x'.repeat(71)}`, 'the batch')).toThrow(/not a valid MIME boundary/);
  expect(() => boundaryOf('multipart/mixed; boundary="ends in space "', 'the batch')).toThrow(/not a valid MIME boundary/);
});

test('what writeMultipart writes, parseMultipart reads back', () => {
  const body = writeMultipart('x', [{ headers: 'A: 1\r\n', content: 'one' }, { headers: '', content: Buffer.from('two\r\n') }]);
  expect(parse(body.toString('latin1'), 'x')).toEqual([{ headers: { a: '1' }, content: 'one' }, { headers: {}, content: 'two\r\n' }]);
});

describe('application/http requests and responses', () => {
  const req = (text: string): ReturnType<typeof parseHttpRequest> => parseHttpRequest(Buffer.from(text, 'utf8'), 'part 1');

  test('request line, headers, body; Content-Length cuts trailing bytes; UTF-8 in the URL', () => {
    const r = req('\r\nPATCH engChangeNotices(1)?x=é HTTP/1.1\r\nIf-Match: *\r\nContent-Length: 2\r\n\r\n{}\r\n');
    expect([r.method, r.target, r.headers['if-match'], r.body?.toString()]).toEqual(['PATCH', 'engChangeNotices(1)?x=é', '*', '{}']);
    expect(req('get x').method).toBe('GET');
    expect(req('GET x HTTP/1.1\r\n\r\n').body).toBeUndefined();
  });

  test.each([
    ['', /no request line/],
    ['GET', /no valid request line: 'GET'/],
    ['GET a b HTTP/1.1', /a space in the URL must be sent as %20/],
    ['GET x HTTP/2.0', /HTTP\/2\.0 request/],
    ['GET x HTTP/1.1\r\nContent-Length: -1\r\n\r\n', /invalid Content-Length/],
    ['POST x HTTP/1.1\r\nContent-Length: 5\r\n\r\n{}', /declares Content-Length 5, but its body has 2 bytes/],
  ])('%j → 400', (text, message) => {
    expect(() => req(text)).toThrow(message);
  });

  test('a response: status line with its reason, each header value on its line, Content-Length; 204 without a body', () => {
    const text = httpResponseBytes({ status: 201, headers: { 'Content-Type': 'application/json', 'WWW-Authenticate': ['Bearer', 'Basic'] }, body: '{"a":"é"}' }).toString('utf8');
    expect(text).toBe('HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nWWW-Authenticate: Bearer\r\nWWW-Authenticate: Basic\r\nContent-Length: 10\r\n\r\n{"a":"é"}');
    expect(httpResponseBytes({ status: 204, headers: {}, body: 'ignored' }).toString()).toBe('HTTP/1.1 204 No Content\r\n\r\n');
  });
});
