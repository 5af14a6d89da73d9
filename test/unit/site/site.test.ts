/**
 * The pages outside the service root, over HTTP: the index page, /health and /ready without a token,
 * and the docs page with Swagger UI's files served from node_modules.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import request from 'supertest';
import { jest } from '@jest/globals';
import type { Express } from 'express';
import { createExpressApp } from '../../../src/http/express-app.js';
import { startTestService, type TestService } from '../../helpers/test-service.js';

let t: TestService;
let app: Express;
beforeAll(async () => {
  t = await startTestService();
  app = createExpressApp(t.service);
});
afterAll(() => t.close());

test('the index page links the service root, $metadata, openapi.json, the docs page and the health checks', async () => {
  const r = await request(app).get('/').expect(200);
  expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(r.headers['content-security-policy']).toMatch(/script-src 'self'/);
  const links = [...r.text.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
  const open = ['/api/v2.0/', '/api/v2.0/$metadata', '/api/v2.0/openapi.json', '/docs', '/health', '/ready', '/docs/favicon-32x32.png'];
  expect(links).toEqual(expect.arrayContaining([...open, '/api/v2.0/engChangeNotices', '/api/v2.0/companies']));
  for (const link of open) expect({ link, status: (await request(app).get(link)).status }).toEqual({ link, status: 200 });
});

test('/health and /ready answer without a token; /ready is 503 when the database does not answer', async () => {
  expect((await request(app).get('/health').expect(200)).body).toEqual({ status: 'up' });
  const ready = await request(app).get('/ready').expect(200);
  expect(ready.body).toEqual({ status: 'ready' });
  expect(ready.headers['cache-control']).toBe('no-store');
  const broken = await startTestService();
  try {
    const brokenApp = createExpressApp(broken.service);
    broken.service.db.close();
    const errors = jest.spyOn(broken.service.log, 'error');
    const r = await request(brokenApp).get('/ready').expect(503);
    expect(r.body.status).toBe('unavailable');
    expect(r.headers['retry-after']).toBe('5');
    // A load balancer probing through an outage: the cause is logged once, the probes like it counted (errors/refusal-log.ts).
    for (let i = 0; i < 4; i++) await request(brokenApp).get('/ready').expect(503);
    expect(errors).toHaveBeenCalledTimes(1);
    errors.mockRestore();
    expect((await request(brokenApp).get('/health')).status).toBe(200);
  } finally {
    await broken.close();
  }
});

test('the docs page loads Swagger UI from node_modules and points it at openapi.json, with no online validator', async () => {
  const page = await request(app).get('/docs').expect(200);
  expect(page.text).toContain('<script src="/docs/swagger-ui-bundle.js"></script>');
  expect(page.text).not.toMatch(/https?:\/\//);
  const script = await request(app).get('/docs/docs.js').expect(200);
  expect(script.text).toContain('"url":"/api/v2.0/openapi.json"');
  expect(script.text).toContain('"validatorUrl":null');
  const dist = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const bundle = await request(app).get('/docs/swagger-ui-bundle.js').buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  }).expect(200);
  expect(bundle.headers['content-type']).toBe('text/javascript; charset=utf-8');
  expect(bundle.headers['content-encoding']).toBe('gzip');
  expect((bundle.body as Buffer).equals(fs.readFileSync(path.join(dist, 'swagger-ui-bundle.js')))).toBe(true);
  expect((await request(app).get('/docs/swagger-ui.css').expect(200)).headers['content-type']).toBe('text/css; charset=utf-8');
});

test('other methods are 405, other paths an OData 404', async () => {
  const post = await request(app).post('/health').expect(405);
  expect(post.headers['allow']).toBe('GET, HEAD');
  expect((await request(app).get('/docs/package.json').expect(404)).body.error.code).toBe('BadRequest_NotFound');
  expect((await request(app).get('/docs/../package.json').expect(404)).body.error.code).toBe('BadRequest_NotFound');
  expect((await request(app).head('/health').expect(200)).text ?? '').toBe('');
});
