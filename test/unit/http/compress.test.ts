/**
 * Compression over a real socket: gzip (br when the client rates it higher) per Accept-Encoding for
 * compressible bodies of 1 KiB or more, streamed in chunks; nothing changes for requests that do not ask.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createExpressApp } from '../../../src/http/express-app.js';
import { MIN_COMPRESSED_BYTES, compressionApplies, negotiateCoding } from '../../../src/http/compress.js';
import { startTestService, type TestService } from '../../helpers/test-service.js';

let t: TestService;
let server: http.Server;
let port: number;
let auth: string;
beforeAll(async () => {
  t = await startTestService();
  auth = `Bearer ${await t.token('ADMIN')}`;
  server = createExpressApp(t.service).listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await server.close();
  await t.close();
});

interface Raw {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly bytes: Buffer;
  readonly chunks: number;
}

function get(path: string, headers: Record<string, string>, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers: { Authorization: auth, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks), chunks: chunks.length }));
    });
    req.on('error', reject);
    req.end();
  });
}

const decode = (r: Raw): string => {
  const coding = r.headers['content-encoding'];
  const bytes = coding === 'gzip' ? zlib.gunzipSync(r.bytes) : coding === 'br' ? zlib.brotliDecompressSync(r.bytes) : r.bytes;
  return bytes.toString('utf8');
};

test.each([
  ['gzip', 'gzip'],
  ['gzip, deflate, br', 'gzip'],
  ['br, gzip', 'gzip'],
  ['br;q=1, gzip;q=0.8', 'br'],
  ['br', 'br'],
  ['*', 'gzip'],
  ['deflate', undefined],
  ['identity', undefined],
  ['gzip;q=0, br;q=0', undefined],
  ['', undefined],
])('Accept-Encoding %j → %s', (header, coding) => {
  expect(negotiateCoding(header)).toBe(coding);
});

test('only compressible bodies of at least 1 KiB qualify, counted in UTF-8 bytes', () => {
  expect(compressionApplies('application/json; odata.metadata=minimal', 'x'.repeat(MIN_COMPRESSED_BYTES))).toBe(true);
  expect(compressionApplies('application/json', 'x'.repeat(MIN_COMPRESSED_BYTES - 1))).toBe(false);
  expect(compressionApplies('application/json', 'é'.repeat(512))).toBe(true);
  expect(compressionApplies('application/json', 'é'.repeat(511))).toBe(false);
  expect(compressionApplies('image/png', Buffer.alloc(4096))).toBe(false);
  expect(compressionApplies(undefined, 'x'.repeat(4096))).toBe(false);
});

test('a page asked for with gzip (and with br) is the same JSON, compressed, with Vary', async () => {
  const url = '/api/v2.0/engChangeNotices';
  const plain = await get(url, {});
  expect(plain.bytes.length).toBeGreaterThanOrEqual(MIN_COMPRESSED_BYTES);
  expect(plain.headers['content-encoding']).toBeUndefined();
  expect(plain.headers['vary']).toBeUndefined();
  for (const coding of ['gzip', 'br']) {
    const r = await get(url, { 'Accept-Encoding': coding });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe(coding);
    expect(r.headers['vary']).toBe('Accept-Encoding');
    expect(r.headers['content-length']).toBeUndefined();
    expect(r.bytes.length).toBeLessThan(plain.bytes.length / 3);
    expect(JSON.parse(decode(r))).toEqual(JSON.parse(plain.bytes.toString('utf8')));
  }
});

test('$metadata compresses too; small bodies, HEAD and identity do not', async () => {
  const md = await get('/api/v2.0/$metadata', { 'Accept-Encoding': 'gzip' });
  expect(md.headers['content-encoding']).toBe('gzip');
  expect(decode(md)).toMatch(/^<\?xml/);
  const one = await get('/api/v2.0/companies?$top=1&$select=name', { 'Accept-Encoding': 'gzip' });
  expect(one.bytes.length).toBeLessThan(MIN_COMPRESSED_BYTES);
  expect(one.headers['content-encoding']).toBeUndefined();
  const head = await get('/api/v2.0/engChangeNotices', { 'Accept-Encoding': 'gzip' }, 'HEAD');
  expect(head.headers['content-encoding']).toBeUndefined();
  expect(head.bytes.length).toBe(0);
  const identity = await get('/api/v2.0/engChangeNotices', { 'Accept-Encoding': 'identity' });
  expect(identity.headers['content-encoding']).toBeUndefined();
  expect(identity.headers['vary']).toBe('Accept-Encoding');
});

test('a large page is streamed: compressed chunks arrive as they are produced, and decode to every row', async () => {
  const ecn = (await t.call('GET', '/engChangeNotices?$top=1')).json.value[0];
  const comments = `/engChangeNotices(${ecn.id})/engChangeNoticeComments`;
  // Sixteen at a time: one user's requests beyond its running places and queue would be refused (fair use).
  for (let i = 0; i < 2000; i += 16) {
    const posts = Array.from({ length: 16 }, (_, j) => t.call('POST', comments, { body: { comment: `${i + j} ${randomBytes(24).toString('hex')}` } }));
    expect((await Promise.all(posts)).map((p) => p.status)).toEqual(Array(16).fill(201));
  }
  const plain = await get(`/api/v2.0${comments}`, {});
  const r = await get(`/api/v2.0${comments}`, { 'Accept-Encoding': 'gzip' });
  expect(r.headers['content-encoding']).toBe('gzip');
  expect(r.headers['transfer-encoding']).toBe('chunked');
  expect(r.chunks).toBeGreaterThan(1);
  const page = JSON.parse(decode(r));
  expect(page.value.length).toBeGreaterThanOrEqual(2000);
  expect(page).toEqual(JSON.parse(plain.bytes.toString('utf8')));
});
