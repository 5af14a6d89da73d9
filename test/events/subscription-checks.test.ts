/**
 * The webhook subscription's security checks are framework (src/events/subscription-checks.ts): a rule
 * list without any subscription module (the README's businessRules line) still refuses loopback targets
 * and still runs the validation handshake; a team's own subscription module runs after them; only the
 * operator's allowPrivate (`serve --webhooks-allow-private`) relaxes the address policy.
 */
import { defineHooks } from '../../src/hooks/types.js';
import { businessRules } from '../../src/rules/index.js';
import { engChangeNotice } from '../../src/rules/engChangeNotice.js';
import { FIXTURE_RULES } from '../fixtures/rules.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { expectError } from '../rules/rule-helpers.js';

const APP_ID = '386390e8-f22c-4a6e-bad6-7699b9547004';
const SET = '/externaleventsubscriptions';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});
beforeEach(() => receiver.behave({}));

function body(t: TestService, notificationUrl: string): Record<string, unknown> {
  return { companyId: t.companyIds[0], appId: APP_ID, eventName: 'EngChangeOrderTaskActivated', eventVersion: '1.0', notificationUrl };
}

async function count(t: TestService): Promise<number> {
  return Number((await t.query('SELECT count(*) AS n FROM externaleventsubscriptions'))[0]?.['n']);
}

test('no rule module names the subscription type: the shipped list leaves the checks to the framework', () => {
  expect(businessRules.map((m) => m.entityType)).not.toContain('externalEventSubscription');
});

test('a rule list without a subscription module still refuses http://127.0.0.1:9/hook', async () => {
  const t = await startTestService({ rules: [engChangeNotice], webhooks: { allowPrivate: false } });
  try {
    const r = await t.call('POST', SET, { body: body(t, 'http://127.0.0.1:9/hook') });
    expectError(r, 400, 'Application_FieldValidationException', 'private, loopback or link-local', 'notificationUrl');
    expect(r.json.error.message).toContain('--webhooks-allow-private');
    expect((await count(t))).toBe(0);
  } finally {
    await t.close();
  }
});

test('a rule list without a subscription module still runs the handshake (allowPrivate only relaxes the address policy)', async () => {
  const t = await startTestService({ rules: [], webhooks: { allowPrivate: true, handshakeTimeoutMs: 300 } });
  try {
    receiver.behave({ handshake: () => ({ status: 200, body: 'wrong-token' }) });
    const before = receiver.handshakes.length;
    const refused = await t.call('POST', SET, { body: body(t, `${receiver.url}/hook`) });
    expect(refused.status).toBe(400);
    expect(refused.json.error.target).toBe('notificationUrl');
    expect(receiver.handshakes).toHaveLength(before + 1);
    expect((await count(t))).toBe(0);
    receiver.behave({});
    expect((await t.call('POST', SET, { body: body(t, `${receiver.url}/hook`) })).status).toBe(201);
    expect(receiver.handshakes).toHaveLength(before + 2);
    const unknown = await t.call('POST', SET, { body: { ...body(t, `${receiver.url}/hook`), eventName: 'NoSuchEvent' } });
    expectError(unknown, 400, 'Application_FieldValidationException', "no business event 'NoSuchEvent'", 'eventName');
  } finally {
    await t.close();
  }
});

test("a team's own subscription module runs after the framework's checks, never instead of them", async () => {
  const seen: string[] = [];
  const own = defineHooks({
    entityType: 'externalEventSubscription',
    beforeWrite(ctx) {
      seen.push(String(ctx.changes['notificationUrl']));
    },
  });
  const t = await startTestService({ rules: [...FIXTURE_RULES, own], webhooks: { allowPrivate: false } });
  try {
    const r = await t.call('POST', SET, { body: body(t, 'http://127.0.0.1:9/hook') });
    expect(r.status).toBe(400);
    expect(seen).toEqual([]);
  } finally {
    await t.close();
  }
});
