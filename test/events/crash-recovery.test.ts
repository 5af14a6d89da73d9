/**
 * Crash recovery, with the real command as a child process (`node dist/src/cli/main.js serve`): an ECO
 * release commits three activations; the first notification reaches a receiver that does not answer, and
 * the process is killed with SIGKILL. Nothing was acknowledged, so nothing is recorded as sent. After a
 * restart on the same database, each of the three events is delivered exactly once more (the hung one
 * included): at least once overall, none lost. `ecn-odata deliveries` shows the state before and after.
 * The killed process had claimed the hung notification (src/events/delivery-store.ts claim): the
 * restarted one takes it over when the lease ends (the POST timeout, 2 s here, plus 3 s).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, serveApi, startServeProcess, type ServeProcess } from '../helpers/serve-process.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { APP_ID, waitUntil } from './event-helpers.js';

interface Delivery {
  readonly webhookId: string;
  readonly status: string;
  readonly attempts: readonly { readonly statusCode: number | null; readonly outcome: string }[];
}

let dir: string;
let receiver: Receiver;
const children: ServeProcess[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-crash-'));
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
  await receiver.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const api = serveApi;

function deliveries(db: string): Delivery[] {
  const r = spawnSync(process.execPath, [BIN, 'deliveries', '--db', db, '--json'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`deliveries: ${r.stderr}`);
  return (JSON.parse(r.stdout) as Delivery[]).reverse();
}

test('SIGKILL after the activating commit, before any acknowledgement: on restart every event is delivered exactly once more', async () => {
  const db = path.join(dir, 'crash.sqlite');
  receiver.behave({ notify: () => 'hang' });
  const first = await startServeProcess(['--webhooks-allow-private', '--webhooks-timeout', '2000'], db);
  children.push(first);
  const cronus = (await api(first, 'GET', "/companies?$filter=name eq 'CRONUS'")).json.value[0].id as string;
  const sub = await api(first, 'POST', '/externaleventsubscriptions', {
    companyId: cronus,
    appId: APP_ID,
    eventName: 'EngChangeOrderTaskActivated',
    eventVersion: '1.0',
    notificationUrl: `${receiver.url}/crash`,
  });
  expect(sub.status).toBe(201);
  const eco = (await api(first, 'POST', '/engChangeOrders', { description: 'crash test' })).json.id as string;
  const tasks: string[] = [];
  for (let i = 1; i <= 3; i++) tasks.push((await api(first, 'POST', `/engChangeOrders(${eco})/engChangeOrderTasks`, { description: `task ${i}` })).json.id as string);
  expect((await api(first, 'PATCH', `/engChangeOrders(${eco})`, { status: 'Released' })).status).toBe(200);

  // The first notification is in flight (the receiver holds it); kill the service hard.
  await receiver.waitFor(() => receiver.received.length === 1, 10_000, 'the first notification');
  const hung = receiver.received[0]?.webhookId;
  const exited = new Promise((resolve) => first.child.once('exit', resolve));
  first.child.kill('SIGKILL');
  await exited;
  expect(first.child.signalCode).toBe('SIGKILL');

  const before = deliveries(db);
  expect(before.map((d) => [d.status, d.attempts.length])).toEqual([
    ['Pending', 0],
    ['Pending', 0],
    ['Pending', 0],
  ]);
  expect(before[0]?.webhookId).toBe(hung);

  // Restart on the same database; the receiver now answers.
  const seenBefore = receiver.received.length;
  receiver.behave({ notify: () => 200 });
  const second = await startServeProcess(['--webhooks-allow-private', '--webhooks-timeout', '2000'], db);
  children.push(second);
  await receiver.waitFor(() => receiver.accepted.length === 3, 15_000, 'three deliveries after the restart');
  await waitUntil(() => deliveries(db).every((d) => d.status === 'Sent'), 10_000, 'all Sent');
  const stopped = new Promise((resolve) => second.child.once('exit', resolve));
  second.stop();
  await stopped;

  const after = receiver.received.slice(seenBefore);
  expect(after.map((r) => r.json.payload.engChangeOrderTaskId)).toEqual(tasks);
  expect(after.map((r) => r.webhookId)).toEqual(before.map((d) => d.webhookId));
  expect(new Set(after.map((r) => r.webhookId)).size).toBe(3);
  expect(after[0]?.webhookId).toBe(hung);
  expect(deliveries(db).map((d) => [d.status, d.attempts.map((a) => [a.statusCode, a.outcome])])).toEqual([
    ['Sent', [[200, 'Sent']]],
    ['Sent', [[200, 'Sent']]],
    ['Sent', [[200, 'Sent']]],
  ]);
  // Overall: the hung one twice (at least once), the others once.
  const all = receiver.received.map((r) => r.webhookId);
  expect(all.filter((id) => id === hung)).toHaveLength(2);
  expect(all).toHaveLength(4);
});

test('ecn-odata deliveries: text output, --status filter, usage errors', () => {
  const db = path.join(dir, 'crash.sqlite');
  const text = spawnSync(process.execPath, [BIN, 'deliveries', '--db', db], { encoding: 'utf8' });
  expect(text.status).toBe(0);
  expect(text.stdout).toMatch(/^#3 Sent {4}EngChangeOrderTaskActivated 1\.0 {2}msg_[0-9a-f]{32} {2}company [0-9a-f-]{36} {2}subscription [0-9a-f-]{36} {2}-> http:\/\/127\.0\.0\.1:\d+\/crash/m);
  expect(text.stdout).toMatch(/^ {4}attempt 1 {2}\S+ {2}HTTP 200 {2}\d+ ms {2}Sent$/m);
  const failed = spawnSync(process.execPath, [BIN, 'deliveries', '--db', db, '--status', 'Failed'], { encoding: 'utf8' });
  expect([failed.status, failed.stdout.trim()]).toEqual([0, 'No Failed webhook notifications.']);
  const bad = spawnSync(process.execPath, [BIN, 'deliveries', '--db', db, '--status', 'Lost'], { encoding: 'utf8' });
  expect([bad.status, bad.stderr.trim()]).toEqual([2, "ecn-odata deliveries: --status takes Pending, Sent, Failed, got 'Lost'."]);
});
