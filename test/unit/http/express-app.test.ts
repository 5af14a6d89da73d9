/**
 * The HTTP layer over a real socket-less express app (supertest): headers, HEAD, paths outside the
 * service root, body size limit, request ids.
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createExpressApp } from '../../../src/http/express-app.js';
import { startTestService, type TestService } from '../../helpers/test-service.js';
import type { Express } from 'express';

let t: TestService;
let app: Express;
let auth: string;
beforeAll(async () => {
  t = await startTestService();
  app = createExpressApp(t.service);
  auth = `Bearer ${await t.token('ADMIN')}`;
});
afterAll(() => t.close());

test('GET the service document with OData headers and an absolute context', async () => {
  const r = await request(app).get('/api/v2.0/').expect(200);
  expect(r.headers['odata-version']).toBe('4.0');
  expect(r.headers['content-type']).toBe('application/json; odata.metadata=minimal');
  expect(r.body['@odata.context']).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2\.0\/\$metadata$/);
  expect(r.body.value.map((v: { name: string }) => v.name)).toContain('engChangeNotices');
  expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
});

test('$metadata is XML by default, also for a JSON-first Accept that lists XML (Power Query)', async () => {
  const accept = 'application/json;odata.metadata=minimal;q=1.0,application/json;odata=minimalmetadata;q=0.9,application/atomsvc+xml;q=0.8,application/atom+xml;q=0.8,application/xml;q=0.7,text/plain;q=0.7';
  const r = await request(app).get('/api/v2.0/$metadata').set('Accept', accept).expect(200);
  expect(r.headers['content-type']).toMatch(/^application\/xml/);
  const j = await request(app).get('/api/v2.0/$metadata?$format=json').expect(200);
  expect(j.headers['content-type']).toMatch(/^application\/json/);
  expect(j.body.$Version).toBe('4.0');
});

test('HEAD answers like GET without a body (SAP Cloud SDK CSRF probe)', async () => {
  const r = await request(app).head('/api/v2.0/engChangeNotices').set('Authorization', auth).expect(200);
  expect(r.headers['odata-version']).toBe('4.0');
  expect(r.text ?? '').toBe('');
});

test('a path outside the service root is an OData 404', async () => {
  const r = await request(app).get('/nothing/here').expect(404);
  expect(r.body.error.code).toBe('BadRequest_NotFound');
  expect(r.headers['odata-version']).toBe('4.0');
});

test('a body over the configured limit is refused with 413 before it is buffered', async () => {
  const big = JSON.stringify({ drawingNumber: 'x'.repeat(t.service.model.service.maxBodyBytes) });
  const r = await request(app).post('/api/v2.0/engChangeNotices').set('Authorization', auth).set('Content-Type', 'application/json').send(big).expect(413);
  expect(r.body.error.code).toBe('BadRequest_PayloadTooLarge');
});

test('the body limit applies to a whole $batch: many small parts past it → 413, nothing run', async () => {
  const part = '--b\r\nContent-Type: application/http\r\n\r\nPOST engChangeNotices HTTP/1.1\r\nContent-Type: application/json\r\n\r\n{"sourceNumber":"BIG"}\r\n';
  const count = Math.ceil(t.service.model.service.maxBodyBytes / part.length) + 1;
  const before = (await request(app).get('/api/v2.0/engChangeNotices/$count').set('Authorization', auth)).text;
  const r = await request(app).post('/api/v2.0/$batch').set('Authorization', auth).set('Content-Type', 'multipart/mixed; boundary=b').send(`${part.repeat(count)}--b--\r\n`).expect(413);
  expect(r.body.error.code).toBe('BadRequest_PayloadTooLarge');
  expect((await request(app).get('/api/v2.0/engChangeNotices/$count').set('Authorization', auth)).text).toBe(before);
});

test('a $batch over HTTP: multipart in, multipart out', async () => {
  const body = '--b\r\nContent-Type: application/http\r\n\r\nGET engChangeNotices/$count HTTP/1.1\r\n\r\n\r\n--b--\r\n';
  const r = await request(app).post('/api/v2.0/$batch').set('Authorization', auth).set('Content-Type', 'multipart/mixed; boundary=b').send(body).buffer(true).parse((res, done) => {
    let text = '';
    res.on('data', (c: Buffer) => (text += c.toString('utf8')));
    res.on('end', () => done(null, text));
  });
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toMatch(/^multipart\/mixed; boundary=batchresponse_/);
  expect(r.body as string).toMatch(/HTTP\/1\.1 200 OK\r\nContent-Type: text\/plain; charset=utf-8\r\n/);
});

test('a client request id is echoed', async () => {
  const r = await request(app).get('/api/v2.0/companies').set('Authorization', auth).set('x-request-id', 'abc-123').expect(200);
  expect(r.headers['x-request-id']).toBe('abc-123');
});

test('a POST round trip over HTTP', async () => {
  const r = await request(app).post('/api/v2.0/engChangeNotices').set('Authorization', auth).send({ sourceNumber: 'HTTP-1', changeReasonCode: 'COST' }).expect(201);
  expect(r.headers['location']).toContain(`/engChangeNotices(${r.body.id})`);
  expect(r.headers['etag']).toBe(r.body['@odata.etag']);
});

test('failed authentications are limited per client address and credential (429); valid credentials are never refused', async () => {
  const limited = await startTestService({ authRateLimit: { windowMs: 60_000, max: 3 } });
  try {
    const a = createExpressApp(limited.service);
    const good = `Bearer ${await limited.token('ADMIN')}`;
    for (let i = 0; i < 5; i++) await request(a).get('/api/v2.0/companies').set('Authorization', good).expect(200);
    for (let i = 0; i < 3; i++) {
      const r = await request(a).get('/api/v2.0/companies').set('Authorization', 'Bearer ecn_nope').expect(401);
      expect(r.headers['www-authenticate']).toMatch(/^Bearer/);
    }
    const blocked = await request(a).get('/api/v2.0/companies').set('Authorization', 'Bearer ecn_nope').expect(429);
    expect(blocked.body.error.code).toBe('BadRequest_TooManyRequests');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // Other bad credentials from the address are refused too; a valid one is served.
    await request(a).get('/api/v2.0/companies').set('Authorization', 'Bearer ecn_other').expect(429);
    await request(a).get('/api/v2.0/companies').set('Authorization', good).expect(200);
  } finally {
    await limited.close();
  }
});

test('a request read from a socket is marked as one that may join the turn\'s read snapshot', async () => {
  const seen: (boolean | undefined)[] = [];
  const handle = t.service.handle;
  (t.service as { handle: typeof handle }).handle = (req) => {
    seen.push(req.turnSnapshot);
    return handle(req);
  };
  try {
    await request(app).get('/api/v2.0/engChangeNotices?$top=1').set('Authorization', auth).expect(200);
  } finally {
    (t.service as { handle: typeof handle }).handle = handle;
  }
  expect(seen).toEqual([true]);
});

test('a 401 sends one WWW-Authenticate line per scheme, and failed Basic credentials count towards the limit', async () => {
  const limited = await startTestService({ authRateLimit: { windowMs: 60_000, max: 2 } });
  try {
    const a = createExpressApp(limited.service);
    const wrong = `Basic ${Buffer.from(`KLEE:${await limited.token('ADMIN')}`).toString('base64')}`;
    const server = a.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const raw = await new Promise<http.IncomingMessage>((resolve) => {
      http.get({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', path: '/api/v2.0/companies', headers: { Authorization: wrong } }, (res) => resolve(res.resume()));
    });
    await server.close();
    expect(raw.statusCode).toBe(401);
    const lines: string[] = [];
    for (let i = 0; i < raw.rawHeaders.length; i += 2) if (raw.rawHeaders[i]?.toLowerCase() === 'www-authenticate') lines.push(raw.rawHeaders[i + 1] ?? '');
    expect(lines).toEqual(['Bearer realm="ecn-odata", error="invalid_token"', 'Basic realm="ecn-odata", charset="UTF-8"']);
    await request(a).get('/api/v2.0/companies').set('Authorization', wrong).expect(401);
    await request(a).get('/api/v2.0/companies').set('Authorization', wrong).expect(429);
  } finally {
    await limited.close();
  }
});
