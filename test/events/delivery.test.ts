/**
 * Webhook delivery (conventions §6) from the in-process service to real receivers on 127.0.0.1: an ECO
 * release that activates three tasks delivers three signed notifications with the right bodies; 503,
 * 503, 200 is delivered on the third attempt; a 400 fails at once; retries end after the last backoff;
 * a timeout is retried; a rolled-back transaction sends nothing; each subscription gets its
 * notifications strictly in order; a deleted subscription's pending notifications fail.
 */
import { BusinessRuleError } from '../../src/errors/odata-error.js';
import { defineHooks, type EntityHooks } from '../../src/hooks/types.js';
import { FIXTURE_RULES } from '../fixtures/rules.js';
import { initiatingUserGuid } from '../../src/events/notification.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { startReceiver, verifySignature, type Receiver } from '../helpers/webhook-receiver.js';
import { APP_ID, attempts, ecoWithTasks, notifications, release, subscribe, waitUntil } from './event-helpers.js';

const BACKOFF = [40, 40, 40];

/** The framework tests' rules (the demo's modules), with one addition: an ECO update whose description is 'rollback' fails after its rules ran (and emitted). */
const rules: EntityHooks[] = FIXTURE_RULES.map((module) => {
  if (module.entityType !== 'engChangeOrder' || module.validateWrite === undefined) return module;
  const original = module.validateWrite;
  return defineHooks({
    ...module,
    async validateWrite(ctx) {
      await original(ctx);
      if (ctx.op === 'update' && ctx.after['description'] === 'rollback') throw new BusinessRuleError('Rolled back after the tasks were activated (test).');
    },
  });
});

let t: TestService;
let receiver: Receiver;
let cronus = '';
let fabrikam = '';

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestService({ rules, webhooks: { deliver: true, allowPrivate: true, backoffMs: BACKOFF, pollMs: 50, timeoutMs: 400, publicBaseUrl: 'https://ecn.example.com/' } });
  [cronus, fabrikam] = t.companyIds as [string, string];
});
afterAll(async () => {
  await t.close();
  await t.service.delivery?.idle();
  await receiver.close();
});

/** Runs a test with a fresh subscription of CRONUS at `path`, deleted afterwards. */
async function withSubscription(path: string, body: (secret: string, id: string) => Promise<void>, clientState?: string): Promise<void> {
  const sub = await subscribe(t, receiver, cronus, path, clientState);
  try {
    await body(sub.secret, sub.id);
  } finally {
    await t.call('DELETE', `/externaleventsubscriptions(${sub.id})`);
  }
}

const at = (path: string): Receiver['received'] => receiver.received.filter((r) => r.path === path);

test('an ECO release that activates 3 tasks delivers 3 signed notifications with the right bodies, in task order', async () => {
  const other = await subscribe(t, receiver, fabrikam, '/fabrikam');
  await withSubscription(
    '/three',
    async (secret, id) => {
      const { ecoId, taskIds } = await ecoWithTasks(t, 3);
      expect((await release(t, ecoId)).status).toBe(200);
      await receiver.waitFor(() => at('/three').length === 3, 10_000, '3 notifications');
      const got = at('/three');
      expect(got.map((r) => r.json.payload.engChangeOrderTaskId)).toEqual(taskIds);
      got.forEach((r, i) => {
        expect(r.contentType).toBe('application/json');
        expect(r.webhookId).toMatch(/^msg_[0-9a-f]{32}$/);
        expect(Math.abs(Number(r.timestamp) - Date.now() / 1000)).toBeLessThan(300);
        expect(verifySignature(secret, r)).toBe(true);
        expect(verifySignature(secret, { ...r, body: r.body.replace('CRONUS', 'CRONUX') })).toBe(false);
        expect(verifySignature(`whsec_${Buffer.alloc(32).toString('base64')}`, r)).toBe(false);
        expect(Object.keys(r.json)).toEqual(['initiatingUserAADObjectId', 'timestamp', 'companyName', 'companyId', 'eventName', 'eventVersion', 'appId', 'clientState', 'payload']);
        expect(r.json).toEqual({
          initiatingUserAADObjectId: initiatingUserGuid(APP_ID, 'ADMIN'),
          timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          companyName: 'CRONUS',
          companyId: cronus,
          eventName: 'EngChangeOrderTaskActivated',
          eventVersion: '1.0',
          appId: APP_ID,
          clientState: 'my-state',
          payload: { engChangeOrderTaskId: taskIds[i], url: `https://ecn.example.com/api/v2.0/companies(${cronus})/engChangeOrderTasks(${taskIds[i]})` },
        });
      });
      expect(new Set(got.map((r) => r.webhookId)).size).toBe(3);
      // The url addresses the task.
      const task = await t.call('GET', got[0]?.json.payload.url.replace('https://ecn.example.com/api/v2.0', ''));
      expect([task.status, task.json.status]).toEqual([200, 'Active']);
      await waitUntil(async () => (await notifications(t, id)).every((n) => n.status === 'Sent'), 5_000, 'Sent');
      expect((await notifications(t, id)).map((n) => [n.status, n.attempts, n.lastStatusCode])).toEqual([
        ['Sent', 1, 200],
        ['Sent', 1, 200],
        ['Sent', 1, 200],
      ]);
      expect(Number((await t.query(`SELECT count(*) AS n FROM "_outbox" WHERE "status" = 'Pending'`))[0]?.['n'])).toBe(0);
    },
    'my-state',
  );
  // The FABRIKAM subscription heard nothing of CRONUS's events.
  expect((await notifications(t, other.id))).toEqual([]);
  expect(at('/fabrikam')).toEqual([]);
  await t.call('DELETE', `/externaleventsubscriptions(${other.id})`);
});

test('a receiver answering 503, 503, then 200 gets the event on the third attempt (3 attempts recorded)', async () => {
  await withSubscription('/flaky', async (secret, id) => {
    receiver.behave({ notify: (r) => (r.path === '/flaky' && at('/flaky').length <= 2 ? 503 : 200) });
    const { ecoId, taskIds } = await ecoWithTasks(t, 1);
    await release(t, ecoId);
    await waitUntil(async () => (await notifications(t, id))[0]?.status === 'Sent', 10_000, 'Sent');
    const [n] = (await notifications(t, id));
    expect([n?.status, n?.attempts, n?.lastStatusCode, n?.lastError]).toEqual(['Sent', 3, 200, null]);
    expect((await attempts(t, n?.id ?? 0))).toEqual([
      { attempt: 1, statusCode: 503, error: null, outcome: 'Retry' },
      { attempt: 2, statusCode: 503, error: null, outcome: 'Retry' },
      { attempt: 3, statusCode: 200, error: null, outcome: 'Sent' },
    ]);
    const got = at('/flaky');
    expect(got).toHaveLength(3);
    // The same message each time: one webhook-id (receivers de-duplicate by it), the same body, each signed.
    expect(new Set(got.map((r) => r.webhookId)).size).toBe(1);
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    expect(got.every((r) => verifySignature(secret, r))).toBe(true);
    expect(got[0]?.json.payload.engChangeOrderTaskId).toBe(taskIds[0]);
  });
});

test('a receiver answering 400 gets one attempt; the notification is Failed and the queue moves on', async () => {
  await withSubscription('/bad', async (_secret, id) => {
    receiver.behave({ notify: (r) => (r.path === '/bad' && at('/bad').length === 1 ? 400 : 200) });
    const first = await ecoWithTasks(t, 1);
    await release(t, first.ecoId);
    const second = await ecoWithTasks(t, 1);
    await release(t, second.ecoId);
    await waitUntil(async () => (await notifications(t, id)).length === 2 && (await notifications(t, id)).every((n) => n.status !== 'Pending'), 10_000, 'both done');
    const [failed, sent] = (await notifications(t, id));
    expect([failed?.status, failed?.attempts, failed?.lastStatusCode]).toEqual(['Failed', 1, 400]);
    expect((await attempts(t, failed?.id ?? 0))).toEqual([{ attempt: 1, statusCode: 400, error: null, outcome: 'Failed' }]);
    expect([sent?.status, sent?.attempts]).toEqual(['Sent', 1]);
    expect(at('/bad').map((r) => r.json.payload.engChangeOrderTaskId)).toEqual([first.taskIds[0], second.taskIds[0]]);
  });
});

test('retries end after the last backoff: 1 + backoff.length attempts, then Failed', async () => {
  await withSubscription('/down', async (_secret, id) => {
    receiver.behave({ notify: (r) => (r.path === '/down' ? 500 : 200) });
    const { ecoId } = await ecoWithTasks(t, 1);
    await release(t, ecoId);
    await waitUntil(async () => (await notifications(t, id))[0]?.status === 'Failed', 10_000, 'Failed');
    const [n] = (await notifications(t, id));
    expect((await attempts(t, n?.id ?? 0)).map((a) => [a.statusCode, a.outcome])).toEqual([
      [500, 'Retry'],
      [500, 'Retry'],
      [500, 'Retry'],
      [500, 'Failed'],
    ]);
    expect(at('/down')).toHaveLength(1 + BACKOFF.length);
  });
});

test('a receiver that does not answer in time is retried (timeout recorded as the error)', async () => {
  await withSubscription('/slow', async (_secret, id) => {
    receiver.behave({ notify: (r) => (r.path === '/slow' && at('/slow').length === 1 ? 'hang' : 200) });
    const { ecoId } = await ecoWithTasks(t, 1);
    await release(t, ecoId);
    await waitUntil(async () => (await notifications(t, id))[0]?.status === 'Sent', 10_000, 'Sent');
    const [n] = (await notifications(t, id));
    const tries = (await attempts(t, n?.id ?? 0));
    expect(tries.map((a) => [a.statusCode, a.outcome])).toEqual([
      [null, 'Retry'],
      [200, 'Sent'],
    ]);
    expect(tries[0]?.error).toMatch(/^timeout: No complete answer within 400 ms/);
  });
});

test('a transaction that rolls back after the activations sends nothing', async () => {
  await withSubscription('/rollback', async (_secret, id) => {
    const { ecoId, taskIds } = await ecoWithTasks(t, 2);
    const outboxBefore = await t.query('SELECT count(*) AS n FROM "_outbox"');
    const refused = await release(t, ecoId, { description: 'rollback' });
    expect([refused.status, refused.json.error.code]).toEqual([400, 'Application_DialogException']);
    expect(await t.query('SELECT count(*) AS n FROM "_outbox"')).toEqual(outboxBefore);
    // The same release without the failure: exactly its notifications arrive, nothing of the rolled-back one.
    expect((await release(t, ecoId)).status).toBe(200);
    await waitUntil(async () => (await notifications(t, id)).length === 2 && (await notifications(t, id)).every((n) => n.status === 'Sent'), 10_000, 'Sent');
    expect(at('/rollback').map((r) => r.json.payload.engChangeOrderTaskId)).toEqual(taskIds);
  });
});

test('per subscription, strictly in order: a retried notification holds back the later ones', async () => {
  await withSubscription('/ordered', async (_secret, id) => {
    let refusedOnce = false;
    receiver.behave({
      notify: (r) => {
        if (r.path !== '/ordered') return 200;
        if (!refusedOnce && at('/ordered').length === 2) {
          refusedOnce = true;
          return 503;
        }
        return 200;
      },
    });
    const { ecoId, taskIds } = await ecoWithTasks(t, 5);
    await release(t, ecoId);
    await waitUntil(async () => (await notifications(t, id)).length === 5 && (await notifications(t, id)).every((n) => n.status === 'Sent'), 10_000, 'all Sent');
    const arrivals = at('/ordered').map((r) => taskIds.indexOf(r.json.payload.engChangeOrderTaskId));
    expect(arrivals).toEqual([0, 1, 1, 2, 3, 4]);
  });
});

test('two subscriptions of the same company each get every event; a slow one does not hold up the other', async () => {
  const a = await subscribe(t, receiver, cronus, '/a');
  const b = await subscribe(t, receiver, cronus, '/b');
  try {
    receiver.behave({ notify: (r) => (r.path === '/b' && at('/b').length === 1 ? 503 : 200) });
    const { ecoId, taskIds } = await ecoWithTasks(t, 2);
    await release(t, ecoId);
    await waitUntil(async () => (await Promise.all([a.id, b.id].map((s) => notifications(t, s)))).every((ns) => ns.length === 2 && ns.every((n) => n.status === 'Sent')), 10_000, 'both Sent');
    expect(at('/a').map((r) => r.json.payload.engChangeOrderTaskId)).toEqual(taskIds);
    expect(at('/b').map((r) => r.json.payload.engChangeOrderTaskId)).toEqual([taskIds[0], taskIds[0], taskIds[1]]);
  } finally {
    await t.call('DELETE', `/externaleventsubscriptions(${a.id})`);
    await t.call('DELETE', `/externaleventsubscriptions(${b.id})`);
  }
});

test("a deleted subscription's pending notifications fail instead of waiting forever", async () => {
  const sub = await subscribe(t, receiver, cronus, '/deleted');
  receiver.behave({ notify: (r) => (r.path === '/deleted' ? 503 : 200) });
  const { ecoId } = await ecoWithTasks(t, 1);
  await release(t, ecoId);
  await waitUntil(async () => ((await notifications(t, sub.id))[0]?.attempts ?? 0) >= 1, 10_000, 'a first attempt');
  expect((await t.call('DELETE', `/externaleventsubscriptions(${sub.id})`)).status).toBe(204);
  await waitUntil(async () => (await notifications(t, sub.id))[0]?.status === 'Failed', 10_000, 'Failed');
  expect((await notifications(t, sub.id))[0]?.lastError).toBe('The subscription was deleted.');
});
