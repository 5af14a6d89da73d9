/**
 * Read scale-out on a real primary and a real hot standby streaming from it (scripts/postgres-pair.mjs,
 * started here: the run's own server has no standby), through the HTTP edge (conventions §13): GETs
 * with `Data-Access-Intent: ReadOnly` read on the replica, everything else on the primary; a replica
 * whose replay is paused past limits.maxReplicaLagMs, or that stopped, is skipped and the primary
 * answers; `/ready` lists the replica's state and lag. Which server answered shows in the data: with the
 * standby's replay paused, a write reaches only the primary.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import request from 'supertest';
import type { Express } from 'express';
import { createExpressApp } from '../../../../src/http/express-app.js';
import { startTestService, type TestService } from '../../../helpers/test-service.js';
import { metadataWithLimits } from '../../../helpers/metadata-copy.js';
import { BIN, startServeProcess } from '../../../helpers/serve-process.js';
// @ts-expect-error -- a JavaScript module without declarations (shared with the bench)
import { startPostgresPair } from '../../../../scripts/postgres-pair.mjs';

interface Pair {
  url(database: string, which?: 'primary' | 'standby'): string;
  createDatabase(name: string): Promise<void>;
  stopStandby(): Promise<void>;
  startStandby(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The lag past which the replica is skipped, ms: short, so the test waits little for it, and long
 * enough that a probe delayed on a busy machine does not skip the replica before the first reads.
 */
const LAG_LIMIT_MS = 3000;
const ROOT = '/api/v2.0';
const READ_ONLY = { 'Data-Access-Intent': 'ReadOnly' };

let pair: Pair;
let t: TestService;
let app: Express;
let token: string;
let ecnUrl: string;

/** Runs `sql` on the standby (a connection of its own: the standby is stopped and started again below). */
async function onStandby(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: pair.url('ecn', 'standby') });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/**
 * Waits until the standby has replayed everything the primary has written now (`/ready` may still show
 * a probe's judgement from before the last write).
 */
async function standbyCaughtUp(ms = 15_000): Promise<void> {
  const [row] = await t.query('SELECT pg_current_wal_lsn()::text AS "position"');
  const c = new pg.Client({ connectionString: pair.url('ecn', 'standby') });
  await c.connect();
  try {
    for (const until = Date.now() + ms; Date.now() < until; ) {
      const r = await c.query('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS "done"', [row?.['position']]);
      if (r.rows[0]?.done === true) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the standby did not replay the primary's WAL within ${ms} ms`);
  } finally {
    await c.end();
  }
}

/** `/ready`'s answer once its replica satisfies `wanted`, polled for up to `ms`. */
async function readyWhen(wanted: (replica: { state: string; lagMs: number | null }) => boolean, ms = 8000): Promise<{ status: number; body: { status: string; replicas: { host: string; port: number; state: string; lagMs: number | null }[] }; text: string }> {
  const until = Date.now() + ms;
  for (;;) {
    const r = await request(app).get('/ready');
    const replica = (r.body as { replicas?: { state: string; lagMs: number | null }[] }).replicas?.[0];
    if ((replica !== undefined && wanted(replica)) || Date.now() > until) return { status: r.status, body: r.body, text: r.text };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The ECN's drawing number, read with `headers`. */
async function drawing(headers: Record<string, string> = {}): Promise<unknown> {
  const r = await request(app).get(`${ROOT}${ecnUrl}`).set({ Authorization: `Bearer ${token}`, ...headers });
  expect(r.status).toBe(200);
  return r.body.drawingNumber;
}

/** Sets the ECN's drawing number with `headers` (an If-Match of the current ETag). */
async function setDrawing(value: string, headers: Record<string, string> = {}): Promise<void> {
  const current = await request(app).get(`${ROOT}${ecnUrl}`).set({ Authorization: `Bearer ${token}` });
  const r = await request(app)
    .patch(`${ROOT}${ecnUrl}`)
    .set({ Authorization: `Bearer ${token}`, 'If-Match': String(current.headers['etag']), ...headers })
    .send({ drawingNumber: value });
  expect(r.status).toBeLessThan(300);
}

/** A JSON `$batch` of `requests`, sent with `headers`; the answers' bodies in order. */
async function batch(requests: readonly object[], headers: Record<string, string> = {}): Promise<{ status: number; body: { drawingNumber?: unknown } }[]> {
  const r = await request(app)
    .post(`${ROOT}/$batch`)
    .set({ Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json', ...headers })
    .send(JSON.stringify({ requests }));
  expect(r.status).toBe(200);
  return (r.body as { responses: { status: number; body: { drawingNumber?: unknown } }[] }).responses;
}

beforeAll(async () => {
  pair = (await startPostgresPair({ parent: path.dirname(os.tmpdir()) })) as Pair;
  await pair.createDatabase('ecn');
  t = await startTestService({ dbFile: pair.url('ecn'), readReplicas: [pair.url('ecn', 'standby')], metadataDir: metadataWithLimits({ maxReplicaLagMs: LAG_LIMIT_MS }) });
  app = createExpressApp(t.service);
  token = await t.token('ADMIN');
  const list = await t.call('GET', `/companies(${t.companyIds[0]})/engChangeNotices?$top=1&$select=id`);
  ecnUrl = `/companies(${t.companyIds[0]})/engChangeNotices(${String(list.json.value[0].id)})`;
  // The replica has replayed the demo data.
  expect((await readyWhen((r) => r.lagMs === 0, 30_000)).body.replicas[0]?.lagMs).toBe(0);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await pair?.stop();
});

test('/ready lists the replica by host and port, never its credentials, with its state and lag', async () => {
  const r = await readyWhen((replica) => replica.state === 'ok');
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ status: 'ready', replicas: [{ host: '127.0.0.1', port: Number(new URL(pair.url('ecn', 'standby')).port), state: 'ok', lagMs: expect.any(Number) }] });
  expect(r.text).not.toContain('pair-pw');
});

test('with replay paused: reads with the header come from the replica, reads without it and mixed batches from the primary; past the lag limit the primary answers all', async () => {
  await setDrawing('BEFORE');
  await standbyCaughtUp();
  await readyWhen((r) => r.state === 'ok');
  await onStandby('SELECT pg_wal_replay_pause()');
  try {
    await setDrawing('AFTER');
    // Within the lag limit: the replica, which has not replayed the write.
    expect(await drawing(READ_ONLY)).toBe('BEFORE');
    const reads = await batch([{ id: '1', method: 'GET', url: ecnUrl.slice(1) }], READ_ONLY);
    expect(reads[0]?.body.drawingNumber).toBe('BEFORE');
    // The client reads its own writes without the header; a batch with a write in it, with or without.
    expect(await drawing()).toBe('AFTER');
    const mixed = await batch([{ id: '1', method: 'GET', url: ecnUrl.slice(1) }, { id: '2', method: 'POST', url: `companies(${t.companyIds[0]})/engChangeNoticeComments`, body: {} }], READ_ONLY);
    expect(mixed[0]?.body.drawingNumber).toBe('AFTER');
    // Past the limit the replica is skipped (within about a probe), and the primary answers.
    const lagging = await readyWhen((r) => r.state === 'lagging');
    expect(lagging.status).toBe(200);
    expect(lagging.body.replicas[0]).toEqual({ host: '127.0.0.1', port: expect.any(Number), state: 'lagging', lagMs: expect.any(Number) });
    expect(lagging.body.replicas[0]?.lagMs).toBeGreaterThan(LAG_LIMIT_MS);
    expect(await drawing(READ_ONLY)).toBe('AFTER');
    expect((await batch([{ id: '1', method: 'GET', url: ecnUrl.slice(1) }], READ_ONLY))[0]?.body.drawingNumber).toBe('AFTER');
  } finally {
    await onStandby('SELECT pg_wal_replay_resume()');
  }
  // Caught up again, the replica answers, with the write replayed.
  await standbyCaughtUp();
  expect((await readyWhen((r) => r.state === 'ok')).body.replicas[0]?.state).toBe('ok');
  expect(await drawing(READ_ONLY)).toBe('AFTER');
}, 30_000);

test('writes sent with the header still go to the primary', async () => {
  await setDrawing('WRITTEN-WITH-HEADER', READ_ONLY);
  expect(await drawing()).toBe('WRITTEN-WITH-HEADER');
  const answers = await batch([{ id: '1', method: 'PATCH', url: ecnUrl.slice(1), headers: { 'If-Match': '*' }, body: { drawingNumber: 'BATCHED-WITH-HEADER' } }], READ_ONLY);
  expect(answers[0]?.status).toBeLessThan(300);
  expect(await drawing()).toBe('BATCHED-WITH-HEADER');
});

test('a revoked token is refused whatever the header, though the replica has not replayed the revocation', async () => {
  const other = await t.token('ADMIN');
  await standbyCaughtUp();
  await readyWhen((r) => r.state === 'ok');
  await onStandby('SELECT pg_wal_replay_pause()');
  try {
    await t.service.context.tokens.revoke({ token: other });
    const r = await request(app).get(`${ROOT}${ecnUrl}`).set({ Authorization: `Bearer ${other}`, ...READ_ONLY });
    expect(r.status).toBe(401);
  } finally {
    await onStandby('SELECT pg_wal_replay_resume()');
  }
});

test('a stopped replica: reads with the header answer from the primary at once, /ready says down and stays 200; started again, it is used again', async () => {
  await readyWhen((r) => r.state === 'ok');
  await pair.stopStandby();
  try {
    await setDrawing('WHILE-DOWN');
    expect(await drawing(READ_ONLY)).toBe('WHILE-DOWN');
    const down = await readyWhen((r) => r.state === 'down', 3000);
    expect(down.status).toBe(200);
    expect(down.body.replicas[0]).toMatchObject({ state: 'down', lagMs: null });
    expect((await batch([{ id: '1', method: 'GET', url: ecnUrl.slice(1) }], READ_ONLY))[0]?.body.drawingNumber).toBe('WHILE-DOWN');
  } finally {
    await pair.startStandby();
  }
  await standbyCaughtUp();
  expect((await readyWhen((r) => r.state === 'ok', 15_000)).body.replicas[0]?.state).toBe('ok');
  expect(await drawing(READ_ONLY)).toBe('WHILE-DOWN');
}, 40_000);

test('serve --read-replica (repeatable): /ready lists each replica; GETs with the header answer', async () => {
  await pair.createDatabase('served');
  const standby = pair.url('served', 'standby');
  const server = await startServeProcess(['--read-replica', standby, '--read-replica', standby, '--workers', '2'], pair.url('served'));
  try {
    const origin = new URL(server.url).origin;
    let replicas: { state: string }[] = [];
    for (const until = Date.now() + 8000; Date.now() < until; ) {
      // Each worker has its own replicas (and probes): either may answer.
      replicas = ((await (await fetch(`${origin}/ready`)).json()) as { replicas: { state: string }[] }).replicas;
      if (replicas.every((r) => r.state === 'ok')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(replicas.map((r) => r.state)).toEqual(['ok', 'ok']);
    const r = await fetch(`${server.url}/engChangeNotices?$top=1`, { headers: { authorization: `Bearer ${server.token}`, ...READ_ONLY } });
    expect(r.status).toBe(200);
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
  }
}, 60_000);

test.each([
  [['--db', ':memory:', '--read-replica', 'postgres://u:p@127.0.0.1:1/x'], /--read-replica is for a PostgreSQL --db/],
  [['--db', 'postgres://u:p@127.0.0.1:1/x', '--read-replica', 'replica.sqlite'], /--read-replica takes a PostgreSQL URL .*, got 'replica.sqlite'/],
])('serve %j: one line, exit 1', (args, message) => {
  const r = spawnSync(process.execPath, [BIN, 'serve', '--log-level', 'silent', ...(args as string[])], { encoding: 'utf8', timeout: 20_000 });
  expect(r.status).toBe(1);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(message as RegExp);
});
