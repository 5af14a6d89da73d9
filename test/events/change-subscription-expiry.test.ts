/**
 * The lifetime of entity-change subscriptions (conventions §12) on a model copy with a 2-second lifetime
 * and 600 ms of retries: an expired subscription is deleted (a GET is then 404) and hears nothing; a
 * renewal (PATCH) moves expirationDateTime and keeps it; a receiver that answers 503 past retryForMs
 * loses its subscription.
 */
import { FIXTURE_METADATA } from '../fixtures/model.js';
import { metadataWithWebhooks } from '../helpers/metadata-copy.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { waitUntil } from './event-helpers.js';

const LIFETIME_MS = 2000;

let t: TestService;
let receiver: Receiver;
let cronus = '';

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestService({
    metadataDir: metadataWithWebhooks({ changeWindowMs: 100, subscriptionLifetimeMs: LIFETIME_MS, retryForMs: 600 }, {}, FIXTURE_METADATA),
    webhooks: { deliver: true, allowPrivate: true, backoffMs: [100], pollMs: 50, timeoutMs: 400 },
  });
  cronus = t.companyIds[0] as string;
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

async function subscribe(path: string): Promise<{ id: string; expires: string }> {
  const r = await t.call('POST', '/subscriptions', { body: { notificationUrl: `${receiver.url}${path}`, resource: `companies(${cronus})/engChangeNotices` } });
  if (r.status !== 201) throw new Error(`subscribe: ${r.status} ${r.text}`);
  return { id: r.json.subscriptionId as string, expires: r.json.expirationDateTime as string };
}

const newEcn = async (): Promise<number> => (await t.call('POST', `/companies(${cronus})/engChangeNotices`, { body: { drawingNumber: 'expiry' } })).status;
const status = async (id: string): Promise<number> => (await t.call('GET', `/subscriptions('${id}')`)).status;

test('an expired subscription is deleted within its sweep and hears nothing more; a renewed one stays', async () => {
  const started = Date.now();
  const lapsing = await subscribe('/lapsing');
  const renewed = await subscribe('/renewed');
  expect(new Date(lapsing.expires).getTime() - started).toBeGreaterThanOrEqual(LIFETIME_MS - 100);
  await new Promise((r) => setTimeout(r, LIFETIME_MS / 2));
  const patched = await t.call('PATCH', `/subscriptions('${renewed.id}')`, { body: {}, headers: { 'If-Match': '*' } });
  expect(patched.status).toBe(200);
  expect(new Date(patched.json.expirationDateTime as string).getTime()).toBeGreaterThan(new Date(renewed.expires).getTime() + LIFETIME_MS / 4);
  await waitUntil(async () => (await status(lapsing.id)) === 404, LIFETIME_MS * 2, 'the expired subscription deleted');
  expect(Date.now() - started).toBeGreaterThanOrEqual(LIFETIME_MS);
  expect(await status(renewed.id)).toBe(200);
  expect(await newEcn()).toBe(201);
  await receiver.waitFor(() => receiver.received.some((r) => r.path === '/renewed'), 5000, 'the renewed subscription notified');
  expect(receiver.received.filter((r) => r.path === '/lapsing')).toEqual([]);
});

test('a receiver that answers 503 longer than retryForMs loses its subscription', async () => {
  const sub = await subscribe('/down');
  receiver.behave({ notify: (r) => (r.path === '/down' ? 503 : 200) });
  try {
    expect(await newEcn()).toBe(201);
    await waitUntil(async () => (await status(sub.id)) === 404, 5000, 'the subscription deleted after its retries');
    const attempts = receiver.received.filter((r) => r.path === '/down');
    // The first attempt, then one every 100 ms (the schedule's last delay repeating) for 600 ms.
    expect(attempts.length).toBeGreaterThanOrEqual(4);
    expect(attempts.length).toBeLessThanOrEqual(8);
    expect(new Set(attempts.map((r) => r.webhookId)).size).toBe(1);
  } finally {
    receiver.behave({});
  }
});
