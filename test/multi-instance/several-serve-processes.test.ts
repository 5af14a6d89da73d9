/**
 * Several instances of the service on one database (conventions §10, issue 17): three `serve`
 * processes (the built command, dist/src/cli/main.js) on one database, mixed writes through all of
 * them (creates, PATCHes racing with one If-Match version through every instance, ECO releases that
 * activate tasks and emit events to a webhook subscription), once with no crash and once with one
 * instance SIGKILLed and restarted mid-load (its start-up migration runs while the others write).
 * Checked: every acknowledged write is readable from every instance, numbers are unique, exactly one
 * 2xx per If-Match version, no 5xx, and every event is delivered at least once (exactly once with no crash).
 *
 * The database is a parameter: a fresh SQLite file by default, or the URL in ECN_MULTI_INSTANCE_DB, e.g.
 *   ECN_MULTI_INSTANCE_DB=postgres://ecn:secret@127.0.0.1:5432/ecn_multi npx jest test/multi-instance
 * runs the same test on an (empty or earlier-seeded) PostgreSQL database once that engine is built in:
 * both runs share the database and count only what they wrote themselves.
 */
import { createEmptyDatabase, onPostgres } from '../helpers/postgres.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServeProcess, type ServeProcess } from '../helpers/serve-process.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const APP_ID = '386390e8-f22c-4a6e-bad6-7699b9547004';
/** Webhook POST timeout: a killed instance's claims run out after it plus 3 s. */
const SERVE_ARGS = ['--webhooks-allow-private', '--webhooks-timeout', '1000'];
const LOAD_MS = 4_000;
const LOOPS = 6;

let dir: string;
let db: string;
let receiver: Receiver;
const processes: ServeProcess[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-instances-'));
  db = process.env['ECN_MULTI_INSTANCE_DB'] ?? (onPostgres() ? (await createEmptyDatabase('multi')).url : path.join(dir, 'shared.sqlite'));
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await receiver.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  /** 0: no answer (the connection failed: the instance was killed). */
  readonly status: number;
  readonly json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
}

/** The instances in service; a killed one stays in its slot (its calls fail) until its restart replaces it. */
class Cluster {
  readonly slots: ServeProcess[] = [];
  readonly statuses: number[] = [];

  async start(): Promise<ServeProcess> {
    const p = await startServeProcess(SERVE_ARGS, db);
    processes.push(p);
    return p;
  }

  async call(slot: number, method: string, url: string, body?: unknown, ifMatch?: string): Promise<Answer> {
    const p = this.slots[slot % this.slots.length] as ServeProcess;
    try {
      const res = await fetch(`${p.url}${url}`, {
        method,
        headers: { authorization: `Bearer ${p.token}`, 'content-type': 'application/json', ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      this.statuses.push(res.status);
      return { status: res.status, json: text === '' ? undefined : JSON.parse(text) };
    } catch {
      return { status: 0, json: undefined };
    }
  }
}

/** What one load run wrote and saw. */
interface Outcome {
  readonly created: { id: string; number: string }[];
  /** Per If-Match ETag, the statuses of the PATCHes sent with it through every instance at once. */
  readonly contests: Map<string, number[]>;
  /** Tasks whose activation was acknowledged (the release answered 200). */
  readonly activated: string[];
}

async function load(c: Cluster, until: number, contestId: string): Promise<Outcome> {
  const outcome: Outcome = { created: [], contests: new Map(), activated: [] };
  let n = 0;
  const loop = async (id: number): Promise<void> => {
    for (let i = id; Date.now() < until; i++) {
      const slot = i % 3;
      switch (i % 4) {
        case 0:
        case 1: {
          const r = await c.call(slot, 'POST', '/engChangeNotices', {});
          if (r.status === 201) outcome.created.push({ id: r.json.id, number: r.json.number });
          break;
        }
        case 2: {
          const read = await c.call(slot, 'GET', `/engChangeNotices(${contestId})`);
          if (read.status !== 200) break;
          const etag = read.json['@odata.etag'] as string;
          const all = await Promise.all([0, 1, 2].map((s) => c.call(s, 'PATCH', `/engChangeNotices(${contestId})`, { drawingNumber: `D-${n++}` }, etag)));
          outcome.contests.set(etag, [...(outcome.contests.get(etag) ?? []), ...all.map((a) => a.status)]);
          break;
        }
        case 3: {
          const eco = await c.call(slot, 'POST', '/engChangeOrders', { description: `load ${id}/${i}` });
          if (eco.status !== 201) break;
          const tasks: string[] = [];
          for (let t = 0; t < 2; t++) {
            const task = await c.call(slot + t + 1, 'POST', `/engChangeOrders(${eco.json.id})/engChangeOrderTasks`, { description: `task ${t}` });
            if (task.status === 201) tasks.push(task.json.id);
          }
          const released = await c.call(slot + 2, 'PATCH', `/engChangeOrders(${eco.json.id})`, { status: 'Released' }, '*');
          if (released.status === 200) outcome.activated.push(...tasks);
          break;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: LOOPS }, (_, i) => loop(i)));
  return outcome;
}

async function check(c: Cluster, outcome: Outcome, receiverPath: string, exactlyOnce: boolean): Promise<void> {
  // No 5xx: lock contention waited or was retried.
  expect(c.statuses.filter((s) => s >= 500)).toEqual([]);
  expect(outcome.created.length).toBeGreaterThan(20);
  // Every acknowledged create is readable from every instance, with the number it was given.
  for (const slot of [0, 1, 2]) {
    for (const e of outcome.created) {
      const r = await c.call(slot, 'GET', `/engChangeNotices(${e.id})?$select=number`);
      expect([r.status, r.json?.number]).toEqual([200, e.number]);
    }
  }
  expect(new Set(outcome.created.map((e) => e.number)).size).toBe(outcome.created.length);
  // One If-Match version is accepted once, whichever instances the PATCHes went to.
  expect(outcome.contests.size).toBeGreaterThan(5);
  for (const [etag, statuses] of outcome.contests) {
    const ok = statuses.filter((s) => s >= 200 && s < 300).length;
    if (statuses.includes(0)) expect([etag, ok <= 1]).toEqual([etag, true]);
    else expect([etag, ok, statuses.filter((s) => s === 412).length]).toEqual([etag, 1, statuses.length - 1]);
  }
  // Every event of an acknowledged release arrives (after a crash the killed instance's claims are taken over).
  const delivered = (): string[] => receiver.accepted.filter((r) => r.path === receiverPath).map((r) => r.json.payload.engChangeOrderTaskId as string);
  expect(outcome.activated.length).toBeGreaterThan(4);
  await receiver.waitFor(() => outcome.activated.every((t) => delivered().includes(t)), 30_000, `the events at ${receiverPath}`);
  if (exactlyOnce) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const got = receiver.received.filter((r) => r.path === receiverPath).map((r) => r.webhookId);
    expect(got.length).toBe(new Set(got).size);
    expect([...delivered()].sort()).toEqual([...outcome.activated].sort());
  }
}

async function subscribe(c: Cluster, receiverPath: string): Promise<string> {
  const company = (await c.call(0, 'GET', "/companies?$filter=name eq 'CRONUS'")).json.value[0].id as string;
  const sub = await c.call(0, 'POST', '/externaleventsubscriptions', { companyId: company, appId: APP_ID, eventName: 'EngChangeOrderTaskActivated', eventVersion: '1.0', notificationUrl: `${receiver.url}${receiverPath}` });
  expect(sub.status).toBe(201);
  return sub.json.id as string;
}

async function stopAll(c: Cluster): Promise<void> {
  await Promise.all(
    c.slots.map(async (p) => {
      if (p.child.exitCode !== null || p.child.signalCode !== null) return;
      const exited = new Promise((resolve) => p.child.once('exit', resolve));
      p.stop();
      await exited;
    }),
  );
}

test('three instances, no crash: acknowledged writes everywhere, unique numbers, one 2xx per If-Match version, each event exactly once', async () => {
  const c = new Cluster();
  // The first start seeds the demo data; the other two start together on the seeded database.
  c.slots.push(await c.start());
  c.slots.push(...(await Promise.all([c.start(), c.start()])));
  const sub = await subscribe(c, '/no-crash');
  const contest = await c.call(0, 'POST', '/engChangeNotices', {});
  const outcome = await load(c, Date.now() + LOAD_MS, contest.json.id);
  await check(c, outcome, '/no-crash', true);
  expect((await c.call(0, 'DELETE', `/externaleventsubscriptions(${sub})`)).status).toBe(204);
  await stopAll(c);
}, 90_000);

test('three instances, one SIGKILLed and restarted mid-load: nothing acknowledged is lost, every event at least once', async () => {
  const c = new Cluster();
  c.slots.push(...(await Promise.all([c.start(), c.start(), c.start()])));
  await subscribe(c, '/crash');
  const contest = await c.call(0, 'POST', '/engChangeNotices', {});
  const until = Date.now() + LOAD_MS;
  const crash = (async (): Promise<void> => {
    await new Promise((resolve) => setTimeout(resolve, LOAD_MS / 3));
    const victim = c.slots[2] as ServeProcess;
    const exited = new Promise((resolve) => victim.child.once('exit', resolve));
    victim.child.kill('SIGKILL');
    await exited;
    // Restarted (migration at start-up) while the other two take writes.
    c.slots[2] = await c.start();
  })();
  const outcome = await load(c, until, contest.json.id);
  await crash;
  await check(c, outcome, '/crash', false);
  await stopAll(c);
}, 90_000);
