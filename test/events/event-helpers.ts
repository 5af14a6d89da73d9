/**
 * Helpers of the event tests: subscribe a receiver, build and release an ECO with tasks through the API,
 * wait for a database condition, and read the delivery tables.
 */
import type { TestService } from '../helpers/test-service.js';
import type { Receiver } from '../helpers/webhook-receiver.js';

/** The app id of metadata/service.json. */
export const APP_ID = '386390e8-f22c-4a6e-bad6-7699b9547004';

/** A created subscription and its signing secret. */
export interface Subscription {
  readonly id: string;
  readonly secret: string;
}

/** Subscribes `receiver` (at `path`) to EngChangeOrderTaskActivated 1.0 in a company. */
export async function subscribe(t: TestService, receiver: Receiver, companyId: string, path: string, clientState?: string): Promise<Subscription> {
  const r = await t.call('POST', '/externaleventsubscriptions', {
    body: { companyId, appId: APP_ID, eventName: 'EngChangeOrderTaskActivated', eventVersion: '1.0', notificationUrl: `${receiver.url}${path}`, ...(clientState === undefined ? {} : { clientState }) },
  });
  if (r.status !== 201) throw new Error(`subscribe: ${r.status} ${r.text}`);
  return { id: r.json.id as string, secret: r.json['@Microsoft.NAV.secret'] as string };
}

/** Creates an ECO (in the caller's default company, or through `prefix`) with `count` tasks without predecessors; returns their ids in line order. */
export async function ecoWithTasks(t: TestService, count: number, prefix = ''): Promise<{ ecoId: string; taskIds: string[] }> {
  const eco = await t.call('POST', `${prefix}/engChangeOrders`, { body: { description: 'webhook test' } });
  if (eco.status !== 201) throw new Error(`eco: ${eco.status} ${eco.text}`);
  const taskIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const task = await t.call('POST', `${prefix}/engChangeOrders(${eco.json.id})/engChangeOrderTasks`, { body: { description: `task ${i + 1}` } });
    if (task.status !== 201) throw new Error(`task: ${task.status} ${task.text}`);
    taskIds.push(task.json.id as string);
  }
  return { ecoId: eco.json.id as string, taskIds };
}

/** Releases an ECO (which activates its ready tasks); returns the response. */
export async function release(t: TestService, ecoId: string, extra: Record<string, unknown> = {}, prefix = ''): Promise<{ status: number; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
  return await t.call('PATCH', `${prefix}/engChangeOrders(${ecoId})`, { body: { status: 'Released', ...extra }, headers: { 'If-Match': '*' } });
}

/** Resolves when `predicate` holds (checked every 20 ms); rejects after `timeoutMs`. */
export async function waitUntil(predicate: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'the condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A notification row. */
export interface NotificationRow {
  id: number;
  webhookId: string;
  subscriptionId: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  body: string;
}

/** The notifications of a subscription, in order. */
export async function notifications(t: TestService, subscriptionId: string): Promise<NotificationRow[]> {
  return (await t.query('SELECT * FROM "_notifications" WHERE "subscriptionId" = ? ORDER BY "id"', [subscriptionId])) as unknown as NotificationRow[];
}

/** The attempts of a notification, in order. */
export async function attempts(t: TestService, notificationId: number): Promise<{ attempt: number; statusCode: number | null; error: string | null; outcome: string }[]> {
  return (await t.query('SELECT "attempt", "statusCode", "error", "outcome" FROM "_deliveryAttempts" WHERE "notificationId" = ? ORDER BY "attempt"', [notificationId])) as unknown as {
    attempt: number;
    statusCode: number | null;
    error: string | null;
    outcome: string;
  }[];
}
