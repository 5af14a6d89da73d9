/**
 * Helpers of the business-rule tests: short writers for ECNs, ECOs, tasks and predecessor links over
 * the in-process service, table snapshots for "nothing changed" assertions, and the outbox rows.
 */
import type { TestResponse, TestService } from '../helpers/test-service.js';

/** A JSON entity as the service returns it. */
export type Entity = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience

/** The tables a rule may touch; a refused write must leave all of them as they were. */
export const RULE_TABLES = [
  'engChangeNotices',
  'engChangeNoticeComments',
  'engChangeNoticeBOMLines',
  'engChangeOrders',
  'engChangeOrderTasks',
  'engChangeOrderTaskPredecessors',
  'numberSeries',
  '_outbox',
] as const;

/** Every row of the tables, in insertion order (compare two snapshots with toEqual). */
export async function snapshot(t: TestService, tables: readonly string[] = RULE_TABLES): Promise<Record<string, unknown[]>> {
  return Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await t.query(`SELECT * FROM "${table}" ORDER BY "id"`)] as const)));
}

/** Asserts an OData error: status, code, a message substring and, when given, the target. */
export function expectError(r: TestResponse, status: number, code: string, message: string | RegExp, target?: string): void {
  expect({ status: r.status, code: r.json?.error?.code }).toEqual({ status, code });
  if (typeof message === 'string') expect(r.json.error.message).toContain(message);
  else expect(r.json.error.message).toMatch(message);
  if (target !== undefined) expect(r.json.error.target).toBe(target);
}

/** Runs a request that a rule must refuse, and asserts that it changed no row. */
export async function refused(t: TestService, request: () => Promise<TestResponse>, status: number, code: string, message: string | RegExp, target?: string): Promise<TestResponse> {
  const before = (await snapshot(t));
  const r = await request();
  expectError(r, status, code, message, target);
  expect((await snapshot(t))).toEqual(before);
  return r;
}

/** POST that must answer 201; returns the entity. */
export async function created(t: TestService, url: string, body: unknown): Promise<Entity> {
  const r = await t.call('POST', url, { body });
  if (r.status !== 201) throw new Error(`POST ${url} → ${r.status} ${r.text}`);
  return r.json as Entity;
}

/** PATCH with `If-Match: *` (tests of rules, not of concurrency). */
export async function patch(t: TestService, url: string, body: unknown): Promise<TestResponse> {
  return await t.call('PATCH', url, { body, headers: { 'If-Match': '*' } });
}

/** PATCH that must answer 200; returns the entity. */
export async function patched(t: TestService, url: string, body: unknown): Promise<Entity> {
  const r = await patch(t, url, body);
  if (r.status !== 200) throw new Error(`PATCH ${url} → ${r.status} ${r.text}`);
  return r.json as Entity;
}

/** A new ECO (status New unless the body says otherwise). */
export async function newEco(t: TestService, body: Record<string, unknown> = {}, prefix = ''): Promise<Entity> {
  return await created(t, `${prefix}/engChangeOrders`, { description: 'rule test order', ...body });
}

/** A new task of an ECO, created through the ECO's navigation. */
export async function newTask(t: TestService, ecoId: string, body: Record<string, unknown> = {}, prefix = ''): Promise<Entity> {
  return await created(t, `${prefix}/engChangeOrders(${ecoId})/engChangeOrderTasks`, { description: 'rule test task', ...body });
}

/** Makes `predecessorId` a predecessor of `taskId`; returns the response. */
export async function link(t: TestService, taskId: string, predecessorId: string): Promise<TestResponse> {
  return await t.call('POST', `/engChangeOrderTasks(${taskId})/predecessors`, { body: { predecessorTaskId: predecessorId } });
}

/** The stored row of an entity (or undefined), read directly from its table. */
export async function row(t: TestService, table: string, id: string): Promise<Record<string, unknown> | undefined> {
  return (await t.query(`SELECT * FROM "${table}" WHERE id = ?`, [id]))[0];
}

/** Status of each task, by id. */
export async function taskStatuses(t: TestService, ids: readonly string[]): Promise<string[]> {
  return Promise.all(ids.map(async (id) => String((await row(t, 'engChangeOrderTasks', id))?.['status'])));
}

/** The outbox rows, payload parsed. */
export async function outbox(t: TestService): Promise<{ id: number; companyId: string | null; eventName: string; eventVersion: string; payload: unknown; status: string }[]> {
  const rows = await t.query('SELECT * FROM "_outbox" ORDER BY id');
  return rows.map((r) => ({
    id: Number(r['id']),
    companyId: (r['companyId'] ?? null) as string | null,
    eventName: String(r['eventName']),
    eventVersion: String(r['eventVersion']),
    payload: JSON.parse(String(r['payload'])) as unknown,
    status: String(r['status']),
  }));
}

/** The task ids named by the outbox events after index `from`. */
export async function activatedSince(t: TestService, from: number): Promise<string[]> {
  return (await outbox(t))
    .filter((e) => e.id > from)
    .map((e) => (e.payload as { engChangeOrderTaskId: string }).engChangeOrderTaskId);
}

/** The id of the last outbox row (0 when empty). */
export async function lastOutboxId(t: TestService): Promise<number> {
  return (await outbox(t)).at(-1)?.id ?? 0;
}
