/**
 * A PostgreSQL server that goes away and comes back (a restart, a managed database's failover), seen
 * through the real app: the service stays up, its requests answer 503 with Retry-After (never 500),
 * `GET /ready` says 503 so a load balancer stops sending, and everything answers again once the server
 * is back. The outage is a TCP proxy between the service and the test server that stops listening and
 * drops its connections; and the server ending the connections in use (pg_terminate_backend, what a
 * fast shutdown or an administrator does) under concurrent reads, batches and writes.
 */
import net from 'node:net';
import pg from 'pg';
import request from 'supertest';
import type { Express } from 'express';
import { createExpressApp } from '../../../../src/http/express-app.js';
import { startTestService, type TestService } from '../../../helpers/test-service.js';
import { createEmptyDatabase, type EmptyDatabase } from '../../../helpers/postgres.js';

/** A TCP proxy to `target` that can be cut (stops listening, drops every connection) and restored on the same port. */
class CuttableProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

let database: EmptyDatabase;
let proxy: CuttableProxy;
let t: TestService;
let app: Express;
let token: string;
const root = '/api/v2.0';

beforeAll(async () => {
  database = await createEmptyDatabase('outage');
  const url = new URL(database.url);
  proxy = new CuttableProxy({ host: url.hostname, port: Number(url.port) });
  await proxy.open();
  url.port = String(proxy.port);
  t = await startTestService({ dbFile: url.toString() });
  app = createExpressApp(t.service);
  token = await t.token('ADMIN');
});
afterAll(async () => {
  await proxy.cut();
  await t.close();
  await database.drop();
});

const get = (path: string) => request(app).get(path).set('Authorization', `Bearer ${token}`);

test('while the database cannot be reached, reads, writes and /ready answer 503 with Retry-After; afterwards they answer again', async () => {
  expect(t.service.engine.name).toBe('postgres');
  expect((await request(app).get('/ready')).status).toBe(200);
  const ecn = (await get(`${root}/engChangeNotices?$top=1&$select=id`).expect(200)).body.value[0] as { id: string };

  await proxy.cut();
  for (const r of [
    await get(`${root}/engChangeNotices?$top=5`),
    await get(`${root}/engChangeNotices(${ecn.id})`),
    await request(app).post(`${root}/engChangeNoticeComments`).set('Authorization', `Bearer ${token}`).send({ engChangeNoticeId: ecn.id, comment: 'during the outage' }),
  ]) {
    expect({ status: r.status, code: r.body.error?.code, retryAfter: r.headers['retry-after'] }).toEqual({ status: 503, code: 'Internal_ServiceUnavailable', retryAfter: '5' });
    expect(r.body.error.message).toMatch(/database cannot be reached/);
  }
  const notReady = await request(app).get('/ready');
  expect({ status: notReady.status, body: notReady.body, retryAfter: notReady.headers['retry-after'] }).toEqual({ status: 503, body: { status: 'unavailable', reason: expect.any(String) }, retryAfter: '5' });
  expect((await request(app).get('/health')).status).toBe(200);

  await proxy.open();
  expect((await request(app).get('/ready')).status).toBe(200);
  await get(`${root}/engChangeNotices?$top=5`).expect(200);
  const posted = await request(app).post(`${root}/engChangeNoticeComments`).set('Authorization', `Bearer ${token}`).send({ engChangeNoticeId: ecn.id, comment: 'after the outage' });
  expect(posted.status).toBe(201);
  // Nothing of the refused write was stored.
  const comments = await get(`${root}/engChangeNoticeComments?$filter=engChangeNoticeId eq ${ecn.id}&$select=comment`).expect(200);
  expect((comments.body.value as { comment: string }[]).map((c) => c.comment)).toEqual(expect.not.arrayContaining(['during the outage']));
  expect((comments.body.value as { comment: string }[]).map((c) => c.comment)).toContain('after the outage');
});

test('the server ending connections in use (reads, batches, writes in flight) leaves the service up: 2xx or 503, never 500', async () => {
  const ecn = (await get(`${root}/engChangeNotices?$top=1&$select=id`).expect(200)).body.value[0] as { id: string };
  const batch = ['--b', 'Content-Type: application/http', '', 'GET engChangeNotices?$top=5 HTTP/1.1', '', '', '--b', 'Content-Type: application/http', '', 'GET engChangeNotices?$count=true&$top=3 HTTP/1.1', '', '', '--b--', ''].join('\r\n');
  const statuses = new Set<number>();
  const until = Date.now() + 2_000;
  /** Each response's status, and a batch's parts' statuses (its multipart body read as text). */
  const loop = async (send: () => request.Test): Promise<void> => {
    while (Date.now() < until) {
      const r = await send()
        .buffer(true)
        .parse((res, done) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
          res.on('end', () => done(null, text));
        });
      statuses.add(r.status);
      for (const part of String(r.body).match(/HTTP\/1\.1 \d+/g) ?? []) statuses.add(Number(part.slice(9)));
    }
  };
  const auth = `Bearer ${token}`;
  // Connects to the server itself, not through the proxy.
  const killer = new pg.Client({ connectionString: database.url });
  await killer.connect();
  let terminated = 0;
  const kill = (async () => {
    while (Date.now() < until) {
      const r = await killer.query(`SELECT pg_terminate_backend(pid) AS "k" FROM pg_stat_activity WHERE datname = $1 AND application_name = 'ecn-odata' AND state <> 'idle' AND pid <> pg_backend_pid()`, [database.name]);
      terminated += r.rows.filter((row: { k: boolean }) => row.k).length;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  try {
    await Promise.all([
      loop(() => request(app).post(`${root}/$batch`).set('Authorization', auth).set('Content-Type', 'multipart/mixed; boundary=b').send(batch)),
      loop(() => request(app).get(`${root}/engChangeNotices?$count=true&$top=3`).set('Authorization', auth)),
      loop(() => request(app).patch(`${root}/engChangeNotices(${ecn.id})`).set('Authorization', auth).set('If-Match', '*').send({ drawingNumber: 'KILLED' })),
      loop(() => request(app).post(`${root}/engChangeNoticeComments`).set('Authorization', auth).send({ engChangeNoticeId: ecn.id, comment: 'under termination' })),
      kill,
    ]);
  } finally {
    await killer.end();
  }
  expect(terminated).toBeGreaterThan(0);
  expect([...statuses].filter((s) => s !== 503 && (s < 200 || s >= 300))).toEqual([]);
  await get(`${root}/engChangeNotices?$top=1`).expect(200);
  expect((await request(app).get('/ready')).status).toBe(200);
});
