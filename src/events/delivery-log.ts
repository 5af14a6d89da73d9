/**
 * The operator's view of webhook delivery (`ecn-odata deliveries`): notifications of both kinds, business
 * events and entity changes, newest first, each with its attempts (time, status code or network error,
 * duration, outcome).
 */
import type { Engine } from '../db/engine.js';
import { ident, sqlText } from '../sql/sql-text.js';
import type { AttemptOutcome, NotificationStatus } from '../db/framework-tables.js';

/** One attempt as recorded. */
export interface AttemptEntry {
  readonly attempt: number;
  readonly attemptedAt: string;
  readonly durationMs: number;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly outcome: AttemptOutcome;
}

/** The two kinds of notifications: a business event (conventions §6), or a window of entity changes (§12). */
export type DeliveryKind = 'event' | 'changes';

/** One notification with its attempts. */
export interface DeliveryEntry {
  readonly kind: DeliveryKind;
  readonly id: number;
  readonly webhookId: string;
  readonly status: NotificationStatus;
  /** The business event (kind event). */
  readonly eventName: string | null;
  readonly eventVersion: string | null;
  readonly companyId: string | null;
  /** The subscription (kind event), or the subscriptions whose entries it carries (kind changes). */
  readonly subscriptionIds: readonly string[];
  /** The number of entries (kind changes). */
  readonly entries: number | null;
  readonly notificationUrl: string;
  readonly createdAt: string;
  readonly completedAt: string | null;
  /** When the next attempt may run (pending notifications), ISO 8601. */
  readonly nextAttemptAt: string | null;
  readonly attempts: readonly AttemptEntry[];
}

/** Which notifications to list. */
export interface DeliveryQuery {
  readonly status?: NotificationStatus;
  /** One kind only; both when undefined. */
  readonly kind?: DeliveryKind;
  readonly limit: number;
}

/** The tables of one kind. */
const TABLES: Readonly<Record<DeliveryKind, { readonly notifications: string; readonly attempts: string }>> = {
  event: { notifications: '_notifications', attempts: '_deliveryAttempts' },
  changes: { notifications: '_changeNotifications', attempts: '_changeAttempts' },
};

/** The notifications matching `query`, newest first, with their attempts in order. */
export async function listDeliveries(engine: Pick<Engine, 'db' | 'dialect'>, query: DeliveryQuery): Promise<DeliveryEntry[]> {
  const kinds: DeliveryKind[] = query.kind === undefined ? ['event', 'changes'] : [query.kind];
  const entries: DeliveryEntry[] = [];
  for (const kind of kinds) entries.push(...(await listKind(engine, kind, query)));
  return entries.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id)).slice(0, query.limit);
}

async function listKind(engine: Pick<Engine, 'db' | 'dialect'>, kind: DeliveryKind, query: DeliveryQuery): Promise<DeliveryEntry[]> {
  const sql = sqlText(engine.dialect);
  const t = ident(TABLES[kind].notifications);
  const rows = await engine.db.all(
    query.status === undefined
      ? sql`SELECT * FROM ${t} ORDER BY "id" DESC LIMIT ${query.limit}`
      : sql`SELECT * FROM ${t} WHERE "status" = ${query.status} ORDER BY "id" DESC LIMIT ${query.limit}`,
  );
  const entries: DeliveryEntry[] = [];
  for (const row of rows) {
    const attempts = await engine.db.all(
      sql`SELECT "attempt", "attemptedAt", "durationMs", "statusCode", "error", "outcome" FROM ${ident(TABLES[kind].attempts)} WHERE "notificationId" = ${Number(row['id'])} ORDER BY "attempt", "id"`,
    );
    const ids = row['subscriptionIds'];
    const status = row['status'] as NotificationStatus;
    entries.push({
      kind,
      id: Number(row['id']),
      webhookId: row['webhookId'] as string,
      status,
      eventName: (row['eventName'] as string | undefined) ?? null,
      eventVersion: (row['eventVersion'] as string | undefined) ?? null,
      companyId: (row['companyId'] as string | null | undefined) ?? null,
      subscriptionIds: kind === 'event' ? [row['subscriptionId'] as string] : (JSON.parse(String(ids)) as string[]),
      entries: kind === 'changes' ? Number(row['entries']) : null,
      notificationUrl: row['notificationUrl'] as string,
      createdAt: row['createdAt'] as string,
      completedAt: (row['completedAt'] as string | null) ?? null,
      nextAttemptAt: status === 'Pending' ? new Date(Number(row['nextAttemptAt'])).toISOString() : null,
      attempts: (attempts as unknown as AttemptEntry[]).map((a) => ({ ...a, attempt: Number(a.attempt), durationMs: Number(a.durationMs) })),
    });
  }
  return entries;
}

/** One notification and its attempts as text lines for a terminal. */
export function formatDelivery(entry: DeliveryEntry): string[] {
  const what =
    entry.kind === 'event'
      ? `${entry.eventName ?? ''} ${entry.eventVersion ?? ''}  ${entry.webhookId}  company ${entry.companyId ?? '-'}  subscription ${entry.subscriptionIds.join(', ')}`
      : `${entry.entries ?? 0} entity change${entry.entries === 1 ? '' : 's'}  ${entry.webhookId}  subscription${entry.subscriptionIds.length === 1 ? '' : 's'} ${entry.subscriptionIds.join(', ')}`;
  const head =
    `#${entry.kind === 'event' ? '' : 'c'}${entry.id} ${entry.status.padEnd(7)} ${what}  -> ${entry.notificationUrl}  created ${entry.createdAt}` +
    (entry.nextAttemptAt === null ? '' : `  next attempt ${entry.nextAttemptAt}`);
  const lines = entry.attempts.map(
    (a) => `    attempt ${a.attempt}  ${a.attemptedAt}  ${a.statusCode === null ? (a.error ?? 'no answer') : `HTTP ${a.statusCode}`}  ${a.durationMs} ms  ${a.outcome}`,
  );
  return [head, ...(lines.length === 0 ? ['    no attempt yet'] : lines)];
}
