/**
 * Webhook delivery with several instances on one database (conventions §10): two services on one
 * SQLite file, or one PostgreSQL database on the postgres run (each its own connections and delivery
 * worker, as two processes would be) send each
 * notification once, in order, because an instance sends only the heads it claimed
 * (src/events/delivery-store.ts claim); a claim whose lease ran out is taken over.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeliveryStore } from '../../src/events/delivery-store.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createEmptyDatabase, onPostgres, type EmptyDatabase } from '../helpers/postgres.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { ecoWithTasks, notifications, release, subscribe, waitUntil } from './event-helpers.js';

const WEBHOOKS = { deliver: true, allowPrivate: true, backoffMs: [40, 40, 40], pollMs: 50, timeoutMs: 400 };

let dir: string;
let receiver: Receiver;
let a: TestService;
let b: TestService;
let pg: EmptyDatabase | undefined;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'instances-events-'));
  pg = onPostgres() ? await createEmptyDatabase('instances') : undefined;
  const dbFile = pg?.url ?? path.join(dir, 'db.sqlite');
  receiver = await startReceiver();
  a = await startTestService({ dbFile, webhooks: WEBHOOKS });
  b = await startTestService({ dbFile, webhooks: WEBHOOKS });
});
afterAll(async () => {
  await a.close();
  await b.close();
  await receiver.close();
  await pg?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('two instances delivering from one database send each notification once, in task order', async () => {
  const company = a.companyIds[0] as string;
  const sub = await subscribe(a, receiver, company, '/once');
  const prefix = `/companies(${company})`;
  const ecos = [await ecoWithTasks(a, 3, prefix), await ecoWithTasks(b, 3, prefix)];
  expect((await release(a, ecos[0]!.ecoId, {}, prefix)).status).toBe(200);
  expect((await release(b, ecos[1]!.ecoId, {}, prefix)).status).toBe(200);
  await waitUntil(async () => (await notifications(a, sub.id)).length === 6 && (await notifications(a, sub.id)).every((n) => n.status === 'Sent'), 10_000, 'six notifications sent');
  // Both workers polled the queue meanwhile; let a few more rounds pass before counting.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const got = receiver.received.filter((r) => r.path === '/once');
  expect(got.map((r) => r.webhookId)).toEqual((await notifications(a, sub.id)).map((n) => n.webhookId));
  expect(got.map((r) => r.json.payload.engChangeOrderTaskId)).toEqual([...ecos[0]!.taskIds, ...ecos[1]!.taskIds]);
  expect((await notifications(a, sub.id)).map((n) => n.attempts)).toEqual([1, 1, 1, 1, 1, 1]);
});

test('claims: a head claimed by an instance is left alone while its lease runs, taken over after it ran out, and the first claimant can no longer record', async () => {
  a.service.delivery?.stop();
  b.service.delivery?.stop();
  await a.service.delivery?.idle();
  await b.service.delivery?.idle();
  const company = a.companyIds[0] as string;
  const sub = await subscribe(a, receiver, company, '/takeover');
  const prefix = `/companies(${company})`;
  const eco = await ecoWithTasks(a, 2, prefix);
  expect((await release(a, eco.ecoId, {}, prefix)).status).toBe(200);
  const dead = new DeliveryStore(a.service.engine, a.service.model, 'https://ecn.example.com/api/v2.0', 'dead-instance');
  const live = new DeliveryStore(b.service.engine, b.service.model, 'https://ecn.example.com/api/v2.0', 'live-instance');
  await dead.fanOut(new Date(), 100);
  const now = Date.now();
  const first = await dead.claim(sub.id, now, now + 1_000);
  if (first?.kind !== 'claimed') throw new Error(`not claimed: ${JSON.stringify(first)}`);
  expect(first.notification.webhookId).toBe((await notifications(a, sub.id))[0]?.webhookId);
  // While the lease runs, the other instance neither takes the head nor the one behind it (strict order).
  expect(await live.claim(sub.id, now + 10, now + 1_010)).toEqual({ kind: 'later', at: now + 1_000 });
  // After the lease, it takes the head over; the first claimant's record is refused and leaves no trace.
  const taken = await live.claim(sub.id, now + 1_000, now + 2_000);
  expect(taken).toEqual({ kind: 'claimed', notification: first.notification });
  const attempt = { attempt: 1, attemptedAt: new Date(), durationMs: 5, statusCode: 200, error: null, outcome: 'Sent' as const };
  expect(await dead.record(first.notification, attempt)).toBe(false);
  expect((await notifications(a, sub.id))[0]?.status).toBe('Pending');
  expect(await live.record(first.notification, attempt)).toBe(true);
  expect((await notifications(a, sub.id)).map((n) => [n.status, n.attempts])).toEqual([
    ['Sent', 1],
    ['Pending', 0],
  ]);
  expect(Number((await a.query('SELECT count(*) AS n FROM "_deliveryAttempts" WHERE "notificationId" = ?', [first.notification.id]))[0]?.['n'])).toBe(1);
  // A clean stop ends an instance's claims at once.
  const next = await dead.claim(sub.id, now + 2_000, now + 60_000);
  expect(next?.kind).toBe('claimed');
  expect(await dead.releaseClaims()).toBe(1);
  expect((await live.claim(sub.id, now + 2_001, now + 3_000))?.kind).toBe('claimed');
});

test('a poll with nothing in the outbox opens no write transaction (an idle instance takes no write turn); one with events does', async () => {
  a.service.delivery?.stop();
  b.service.delivery?.stop();
  await a.service.delivery?.idle();
  await b.service.delivery?.idle();
  let transactions = 0;
  const engine = a.service.engine;
  const counting = Object.create(engine, {
    transaction: { value: <T>(body: Parameters<typeof engine.transaction<T>>[0]) => (transactions++, engine.transaction(body)) },
  }) as typeof engine;
  const store = new DeliveryStore(counting, a.service.model, 'https://ecn.example.com/api/v2.0', 'counting-instance');
  await store.fanOut(new Date(), 100);
  transactions = 0;
  expect(await store.fanOut(new Date(), 100)).toBe(0);
  expect(transactions).toBe(0);
  const company = a.companyIds[0] as string;
  const prefix = `/companies(${company})`;
  const eco = await ecoWithTasks(a, 2, prefix);
  expect((await release(a, eco.ecoId, {}, prefix)).status).toBe(200);
  expect(await store.fanOut(new Date(), 100)).toBeGreaterThan(0);
  expect(transactions).toBe(1);
});
