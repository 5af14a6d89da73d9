/**
 * Entity-change notifications (conventions §12) from the in-process service to a real receiver on
 * 127.0.0.1, on a model copy with a short change window and a small collection threshold: the entries
 * each write path produces, the merge rules, one POST per notificationUrl, the collection entry,
 * rolled-back writes, permissions at delivery time, retries and the deletion of a subscription on a
 * non-retryable answer, and expiry.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BusinessRuleError } from '../../src/errors/odata-error.js';
import { defineHooks, type EntityHooks } from '../../src/hooks/types.js';
import { FIXTURE_RULES } from '../fixtures/rules.js';
import { FIXTURE_METADATA } from '../fixtures/model.js';
import { metadataWithWebhooks } from '../helpers/metadata-copy.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { startReceiver, verifySignature, type Received, type Receiver } from '../helpers/webhook-receiver.js';
import { waitUntil } from './event-helpers.js';
import { listDeliveries } from '../../src/events/delivery-log.js';
import { readDataFile } from '../../src/data/data-file.js';
import { ImportRefusedError, importRows, inOuterTransaction } from '../../src/data/import-rows.js';
import type { EntityType } from '../../src/edm/model.js';
import { dataFiles, HEADER, principal } from '../unit/data/import-files.js';

const { csv } = dataFiles('change-import-');

const WINDOW_MS = 300;
const THRESHOLD = 5;

/** The fixture's rules, and an ECN update whose drawingNumber is 'rollback' fails after it was written. */
const rollback = defineHooks({
  entityType: 'engChangeNotice',
  async validateWrite(ctx) {
    if (ctx.op === 'update' && ctx.after['drawingNumber'] === 'rollback') throw new BusinessRuleError('Rolled back (test).');
  },
});
const rules: EntityHooks[] = [
  ...FIXTURE_RULES.map((module) => {
    if (module.entityType !== 'engChangeNotice') return module;
    return defineHooks({
      ...module,
      ...(module.validatesOnUpdate === undefined ? {} : { validatesOnUpdate: [...module.validatesOnUpdate, 'drawingNumber'] }),
      async validateWrite(ctx) {
        await module.validateWrite?.(ctx);
        await rollback.validateWrite?.(ctx);
      },
    });
  }),
  ...(FIXTURE_RULES.some((m) => m.entityType === 'engChangeNotice') ? [] : [rollback]),
];

let t: TestService;
let receiver: Receiver;
let cronus = '';
let fabrikam = '';

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestService({
    metadataDir: metadataWithWebhooks({ changeWindowMs: WINDOW_MS, collectionThreshold: THRESHOLD }, {}, FIXTURE_METADATA),
    rules,
    webhooks: { deliver: true, allowPrivate: true, backoffMs: [40, 40], pollMs: 50, timeoutMs: 400, publicBaseUrl: 'https://ecn.example.com/' },
  });
  [cronus, fabrikam] = t.companyIds as [string, string];
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

interface ChangeSubscription {
  readonly id: string;
  readonly secret: string;
  readonly etag: string;
}

/** Subscribes the receiver (at `path`) to a company's set, as `token`'s user (ADMIN by default). */
async function subscribe(set: string, path: string, init: { company?: string; clientState?: string; token?: string } = {}): Promise<ChangeSubscription> {
  const r = await t.call('POST', '/subscriptions', {
    body: { notificationUrl: `${receiver.url}${path}`, resource: `companies(${init.company ?? cronus})/${set}`, ...(init.clientState === undefined ? {} : { clientState: init.clientState }) },
    ...(init.token === undefined ? {} : { token: init.token }),
  });
  if (r.status !== 201) throw new Error(`subscribe: ${r.status} ${r.text}`);
  return { id: r.json.subscriptionId as string, secret: r.json['@Microsoft.NAV.secret'] as string, etag: r.json['@odata.etag'] as string };
}

async function unsubscribe(sub: ChangeSubscription): Promise<void> {
  await t.call('DELETE', `/subscriptions('${sub.id}')`, { headers: { 'If-Match': '*' } });
}

const at = (path: string): Received[] => receiver.received.filter((r) => r.path === path);
const entries = (path: string): { subscriptionId: string; clientState: string | null; expirationDateTime: string; resource: string; changeType: string; lastModifiedDateTime: string }[] =>
  at(path).flatMap((r) => r.json.value);
const ecnUrl = (company: string, id: string): string => `https://ecn.example.com/api/v2.0/companies(${company})/engChangeNotices(${id})`;

async function newEcn(description: string, prefix = `/companies(${cronus})`): Promise<string> {
  const r = await t.call('POST', `${prefix}/engChangeNotices`, { body: { drawingNumber: description } });
  if (r.status !== 201) throw new Error(`ecn: ${r.status} ${r.text}`);
  return r.json.id as string;
}

async function patchEcn(id: string, body: Record<string, unknown>): Promise<number> {
  return (await t.call('PATCH', `/companies(${cronus})/engChangeNotices(${id})`, { body, headers: { 'If-Match': '*' } })).status;
}

/** Waits until the receiver has `n` POSTs at `path`, then one window more to see that no other follows. */
async function expectPosts(path: string, n: number): Promise<void> {
  await receiver.waitFor(() => at(path).length >= n, 10_000, `${n} POSTs at ${path}`);
  await new Promise((r) => setTimeout(r, WINDOW_MS * 3));
  expect(at(path)).toHaveLength(n);
}

test('a created ECN is one signed POST with one created entry after the window, with the fields of §12', async () => {
  const sub = await subscribe('engChangeNotices', '/created', { clientState: 'secret-state' });
  try {
    const started = Date.now();
    const id = await newEcn('change capture');
    await expectPosts('/created', 1);
    const post = at('/created')[0] as Received;
    expect(Date.now() - started).toBeGreaterThanOrEqual(WINDOW_MS);
    expect(verifySignature(sub.secret, post)).toBe(true);
    expect(post.webhookId).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(post.json).toEqual({
      value: [
        {
          subscriptionId: sub.id,
          clientState: 'secret-state',
          expirationDateTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          resource: ecnUrl(cronus, id),
          changeType: 'created',
          lastModifiedDateTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        },
      ],
    });
    const read = await t.call('GET', `/companies(${cronus})/engChangeNotices(${id})`);
    expect(post.json.value[0].lastModifiedDateTime).toBe(read.json.lastModifiedDateTime);
  } finally {
    await unsubscribe(sub);
  }
});

test('changes of one entity in one window merge: created+updated is created, created+deleted is nothing, updated+deleted is deleted', async () => {
  const existing = await newEcn('exists before');
  const sub = await subscribe('engChangeNotices', '/merge');
  try {
    const a = await newEcn('a');
    expect(await patchEcn(a, { drawingNumber: 'a2' })).toBe(200);
    const b = await newEcn('b');
    expect((await t.call('DELETE', `/companies(${cronus})/engChangeNotices(${b})`)).status).toBe(204);
    expect(await patchEcn(existing, { drawingNumber: 'changed' })).toBe(200);
    const before = new Date().toISOString();
    expect((await t.call('DELETE', `/companies(${cronus})/engChangeNotices(${existing})`)).status).toBe(204);
    await expectPosts('/merge', 1);
    const got = entries('/merge');
    expect(got.map((e) => [e.resource, e.changeType])).toEqual([
      [ecnUrl(cronus, a), 'created'],
      [ecnUrl(cronus, existing), 'deleted'],
    ]);
    expect((got[1] as { lastModifiedDateTime: string }).lastModifiedDateTime >= before).toBe(true);
  } finally {
    await unsubscribe(sub);
  }
});

test('a PUT (replace) is an updated entry', async () => {
  const id = await newEcn('to replace');
  const sub = await subscribe('engChangeNotices', '/put');
  try {
    const r = await t.call('PUT', `/companies(${cronus})/engChangeNotices(${id})`, { body: { drawingNumber: 'replaced', sourceType: 'Item', sourceSequence: 1 }, headers: { 'If-Match': '*' } });
    expect(r.status).toBe(200);
    await expectPosts('/put', 1);
    expect(entries('/put').map((e) => [e.resource, e.changeType])).toEqual([[ecnUrl(cronus, id), 'updated']]);
  } finally {
    await unsubscribe(sub);
  }
});

test('a rolled-back write sends nothing; another company and another set are not heard of', async () => {
  const id = await newEcn('kept');
  const sub = await subscribe('engChangeNotices', '/rollback');
  try {
    expect(await patchEcn(id, { drawingNumber: 'rollback' })).toBe(400);
    await newEcn('other company', `/companies(${fabrikam})`);
    expect((await t.call('POST', `/companies(${cronus})/engChangeNotices(${id})/engChangeNoticeComments`, { body: { comment: 'a comment' } })).status).toBe(201);
    await new Promise((r) => setTimeout(r, WINDOW_MS * 4));
    expect(at('/rollback')).toHaveLength(0);
    expect(await t.query('SELECT * FROM "_changes"')).toEqual([]);
  } finally {
    await unsubscribe(sub);
  }
});

test('more entities than the threshold in one window: one collection entry with the collection URL and a $filter', async () => {
  const sub = await subscribe('engChangeNotices', '/collection');
  try {
    const before = Date.now();
    for (let i = 0; i <= THRESHOLD; i++) await newEcn(`bulk ${i}`);
    await expectPosts('/collection', 1);
    const [entry] = entries('/collection');
    expect(entry?.changeType).toBe('collection');
    const match = /^https:\/\/ecn\.example\.com\/api\/v2\.0\/companies\(([^)]+)\)\/engChangeNotices\?\$filter=lastModifiedDateTime%20gt%20(\S+)$/.exec(entry?.resource ?? '');
    expect(match?.[1]).toBe(cronus);
    const since = new Date(match?.[2] ?? '').getTime();
    expect(since).toBeLessThan(before + 1000);
    // The receiver reads the changes with it: all six, and none older.
    const read = await t.call('GET', `/companies(${cronus})/engChangeNotices?$filter=lastModifiedDateTime gt ${match?.[2] ?? ''}&$count=true`);
    expect(read.json['@odata.count']).toBe(THRESHOLD + 1);
  } finally {
    await unsubscribe(sub);
  }
});

test('the subscriptions of one notificationUrl whose windows close together share one POST, signed for each', async () => {
  const ecns = await subscribe('engChangeNotices', '/shared');
  const comments = await subscribe('engChangeNoticeComments', '/shared');
  try {
    const id = await newEcn('with a comment');
    const c = await t.call('POST', `/companies(${cronus})/engChangeNotices(${id})/engChangeNoticeComments`, { body: { comment: 'hello' } });
    expect(c.status).toBe(201);
    await expectPosts('/shared', 1);
    const post = at('/shared')[0] as Received;
    expect(verifySignature(ecns.secret, post)).toBe(true);
    expect(verifySignature(comments.secret, post)).toBe(true);
    expect(entries('/shared').map((e) => [e.subscriptionId, e.changeType])).toEqual([
      [ecns.id, 'created'],
      [comments.id, 'created'],
    ]);
  } finally {
    await unsubscribe(ecns);
    await unsubscribe(comments);
  }
});

test('every write path is captured: deep insert, a $batch change set, an action, a cascade and rule writes', async () => {
  const ecos = await subscribe('engChangeOrders', '/paths');
  const comments = await subscribe('engChangeNoticeComments', '/paths');
  const tasks = await subscribe('engChangeOrderTasks', '/paths');
  try {
    // Deep insert: an ECN with two comments.
    const deep = await t.call('POST', `/companies(${cronus})/engChangeNotices`, { body: { drawingNumber: 'deep', engChangeNoticeComments: [{ comment: 'one' }, { comment: 'two' }] } });
    expect(deep.status).toBe(201);
    // A change set: one more comment.
    const batch = await t.call('POST', '/$batch', {
      body: { requests: [{ id: '1', atomicityGroup: 'g', method: 'POST', url: `companies(${cronus})/engChangeNotices(${deep.json.id})/engChangeNoticeComments`, headers: { 'content-type': 'application/json' }, body: { comment: 'three' } }] },
    });
    expect(batch.status).toBe(200);
    await expectPosts('/paths', 1);
    expect(entries('/paths').filter((e) => e.subscriptionId === comments.id).map((e) => e.changeType)).toEqual(['created', 'created', 'created']);
    // A cascade: deleting the ECN deletes its comments.
    expect((await t.call('DELETE', `/companies(${cronus})/engChangeNotices(${deep.json.id})`)).status).toBe(204);
    await expectPosts('/paths', 2);
    expect(((at('/paths')[1] as Received).json.value as { changeType: string }[]).map((e) => e.changeType)).toEqual(['deleted', 'deleted', 'deleted']);
    // An ECO with a task, released: the rule activates the task (a rule write).
    const eco = await t.call('POST', `/companies(${cronus})/engChangeOrders`, { body: { description: 'paths' } });
    const task = await t.call('POST', `/companies(${cronus})/engChangeOrders(${eco.json.id})/engChangeOrderTasks`, { body: { description: 'only task' } });
    await expectPosts('/paths', 3);
    expect((await t.call('PATCH', `/companies(${cronus})/engChangeOrders(${eco.json.id})`, { body: { status: 'Released' }, headers: { 'If-Match': '*' } })).status).toBe(200);
    await expectPosts('/paths', 4);
    const released = ((at('/paths')[3] as Received).json.value as { subscriptionId: string; resource: string; changeType: string }[]).map((e) => [e.subscriptionId, e.changeType, e.resource.split('/').pop()]);
    expect(released.sort()).toEqual(
      [
        [ecos.id, 'updated', `engChangeOrders(${eco.json.id})`],
        [tasks.id, 'updated', `engChangeOrderTasks(${task.json.id})`],
      ].sort(),
    );
  } finally {
    for (const s of [ecos, comments, tasks]) await unsubscribe(s);
  }
});

test('the createEngChangeOrder action is captured as a created ECO', async () => {
  const sub = await subscribe('engChangeOrders', '/action');
  try {
    const approved = await t.query(`SELECT "id" FROM "engChangeNotices" WHERE "status" = 'Approved' AND "_companyId" = ?`, [cronus]);
    const id = String(approved[0]?.['id']);
    const r = await t.call('POST', `/companies(${cronus})/engChangeNotices(${id})/Microsoft.NAV.createEngChangeOrder`, { body: {} });
    expect(r.status).toBeLessThan(300);
    await expectPosts('/action', 1);
    expect(entries('/action').map((e) => e.changeType)).toEqual(['created']);
  } finally {
    await unsubscribe(sub);
  }
});

test('ecn-odata import is captured: its rows are entries, and an atomic import that is refused sends nothing', async () => {
  const sub = await subscribe('engChangeNotices', '/import');
  try {
    const ecnType = t.service.model.entityTypeBySet.get('engChangeNotices') as EntityType;
    const file = csv('ok.csv', [HEADER, 'New,COST,IMP-1,Item,,1', 'New,COST,IMP-2,Item,,2']);
    const atomic = (f: string): Promise<unknown> => inOuterTransaction(t.service.context, () => importRows(t.service.context, ecnType, readDataFile(f, ecnType), { mode: 'atomic', principal, companyId: cronus, batchSize: 1 }));
    // As the command runs it: in a process of its own, without delivery (whose transactions would join the import's outer one).
    const workers = [t.service.delivery, t.service.changeDelivery];
    for (const w of workers) w?.stop();
    for (const w of workers) await w?.idle();
    try {
      await atomic(file);
      const refused = csv('refused.csv', [HEADER, 'New,COST,IMP-3,Item,,3', 'New,COST,IMP-4,Item,Planned,4']);
      await expect(atomic(refused)).rejects.toThrow(ImportRefusedError);
    } finally {
      for (const w of workers) w?.start();
    }
    await expectPosts('/import', 1);
    const imported = await t.query(`SELECT "id" FROM "engChangeNotices" WHERE "drawingNumber" LIKE 'IMP-%' ORDER BY "drawingNumber"`);
    expect(imported.map((r) => String(r['id']))).toHaveLength(2);
    expect(entries('/import').map((e) => [e.resource, e.changeType])).toEqual(imported.map((r) => [ecnUrl(cronus, String(r['id'])), 'created']));
  } finally {
    await unsubscribe(sub);
  }
});

test('a subscriber hears nothing of a set its user may no longer read (the grant is checked when the window closes)', async () => {
  const klee = await t.token('KLEE');
  const sub = await subscribe('engChangeNotices', '/revoked', { token: klee });
  try {
    await newEcn('heard');
    await expectPosts('/revoked', 1);
    await t.service.context.users.revoke('KLEE', cronus, ['ECN-READ']);
    await newEcn('not heard');
    await new Promise((r) => setTimeout(r, WINDOW_MS * 4));
    expect(at('/revoked')).toHaveLength(1);
  } finally {
    await t.service.context.users.grant('KLEE', cronus, ['ECN-READ']);
    await unsubscribe(sub);
  }
});

test("a receiver written as Business Central's documentation shows works unmodified: it echoes validationToken and reads value[]", async () => {
  // As the documentation's sample function: the token back as the (JSON) result; then each entry of value[].
  const seen: { resource: string; changeType: string }[] = [];
  const server = http.createServer((req, res) => {
    const validationToken = new URL(req.url ?? '/', 'http://receiver').searchParams.get('validationToken');
    if (validationToken !== null) {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify(validationToken));
      return;
    }
    let requestBody = '';
    req.on('data', (d: Buffer) => (requestBody += d.toString()));
    req.on('end', () => {
      const data = JSON.parse(requestBody) as { value: { resource: string; changeType: string }[] };
      for (const notification of data.value) seen.push({ resource: notification.resource, changeType: notification.changeType });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    const r = await t.call('POST', '/subscriptions', { body: { notificationUrl: `http://127.0.0.1:${port}/api/webhook`, resource: `/api/v2.0/companies(${cronus})/engChangeNotices` } });
    expect(r.status).toBe(201);
    const id = await newEcn('for BC sample');
    await waitUntil(() => seen.length > 0, 10_000, 'the sample receiver to read a notification');
    expect(seen).toEqual([{ resource: ecnUrl(cronus, id), changeType: 'created' }]);
    await t.call('DELETE', `/subscriptions('${String(r.json.subscriptionId)}')`, { headers: { 'If-Match': '*' } });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('408, 429 and 5xx are retried; any other answer deletes the subscription', async () => {
  const sub = await subscribe('engChangeNotices', '/retry');
  const gone = await subscribe('engChangeNotices', '/gone');
  try {
    let retried = 0;
    receiver.behave({ notify: (r) => (r.path === '/retry' ? ([503, 429, 200][retried++] ?? 200) : r.path === '/gone' ? 410 : 200) });
    await newEcn('retried');
    await receiver.waitFor(() => at('/retry').length === 3 && at('/gone').length === 1, 10_000, 'three attempts and one refusal');
    expect(new Set(at('/retry').map((r) => r.webhookId)).size).toBe(1);
    await waitUntil(async () => (await t.call('GET', `/subscriptions('${gone.id}')`)).status === 404, 5000, 'the refused subscription deleted');
    expect((await t.call('GET', `/subscriptions('${sub.id}')`)).status).toBe(200);
    // The operator's view (ecn-odata deliveries) shows both, with their attempts.
    const changes = (): ReturnType<typeof listDeliveries> => listDeliveries(t.service.engine, { kind: 'changes', limit: 100 });
    await waitUntil(async () => (await changes()).find((d) => d.notificationUrl === `${receiver.url}/retry`)?.status === 'Sent', 5000, 'the retried notification recorded as sent');
    const log = await changes();
    const delivered = log.find((d) => d.notificationUrl === `${receiver.url}/retry`);
    expect(delivered?.attempts.map((a) => [a.statusCode, a.outcome])).toEqual([
      [503, 'Retry'],
      [429, 'Retry'],
      [200, 'Sent'],
    ]);
    expect(delivered?.subscriptionIds).toEqual([sub.id]);
    const refused = log.find((d) => d.notificationUrl === `${receiver.url}/gone`);
    expect([refused?.status, refused?.attempts.map((a) => a.statusCode)]).toEqual(['Failed', [410]]);
  } finally {
    receiver.behave({});
    await unsubscribe(sub);
  }
});
