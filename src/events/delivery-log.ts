/**
 * The operator's view of webhook delivery (`ecn-odata deliveries`): notifications, newest first, each
 * with its attempts (time, status code or network error, duration, outcome).
 */
import type { Engine } from '../db/engine.js';
import { sqlText } from '../sql/sql-text.js';
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

/** One notification with its attempts. */
export interface DeliveryEntry {
  readonly id: number;
  readonly webhookId: string;
  readonly status: NotificationStatus;
  readonly eventName: string;
  readonly eventVersion: string;
  readonly companyId: string | null;
  readonly subscriptionId: string;
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
  readonly limit: number;
}

/** The notifications matching `query`, newest first, with their attempts in order. */
export async function listDeliveries(engine: Pick<Engine, 'db' | 'dialect'>, query: DeliveryQuery): Promise<DeliveryEntry[]> {
  const sql = sqlText(engine.dialect);
  const rows =
    query.status === undefined
      ? await engine.db.all(
          sql`SELECT "id", "webhookId", "status", "eventName", "eventVersion", "companyId", "subscriptionId", "notificationUrl", "createdAt", "completedAt", "nextAttemptAt" FROM "_notifications" ORDER BY "id" DESC LIMIT ${query.limit}`,
        )
      : await engine.db.all(
          sql`SELECT "id", "webhookId", "status", "eventName", "eventVersion", "companyId", "subscriptionId", "notificationUrl", "createdAt", "completedAt", "nextAttemptAt" FROM "_notifications" WHERE "status" = ${query.status} ORDER BY "id" DESC LIMIT ${query.limit}`,
        );
  const entries: DeliveryEntry[] = [];
  for (const row of rows as unknown as (Omit<DeliveryEntry, 'attempts' | 'nextAttemptAt'> & { nextAttemptAt: number | string })[]) {
    const attempts = await engine.db.all(
      sql`SELECT "attempt", "attemptedAt", "durationMs", "statusCode", "error", "outcome" FROM "_deliveryAttempts" WHERE "notificationId" = ${row.id} ORDER BY "attempt", "id"`,
    );
    entries.push({
      ...row,
      id: Number(row.id),
      nextAttemptAt: row.status === 'Pending' ? new Date(Number(row.nextAttemptAt)).toISOString() : null,
      attempts: (attempts as unknown as AttemptEntry[]).map((a) => ({ ...a, attempt: Number(a.attempt), durationMs: Number(a.durationMs) })),
    });
  }
  return entries;
}

/** One notification and its attempts as text lines for a terminal. */
export function formatDelivery(entry: DeliveryEntry): string[] {
  const head =
    `#${entry.id} ${entry.status.padEnd(7)} ${entry.eventName} ${entry.eventVersion}  ${entry.webhookId}  company ${entry.companyId ?? '-'}  ` +
    `subscription ${entry.subscriptionId}  -> ${entry.notificationUrl}  created ${entry.createdAt}` +
    (entry.nextAttemptAt === null ? '' : `  next attempt ${entry.nextAttemptAt}`);
  const lines = entry.attempts.map(
    (a) => `    attempt ${a.attempt}  ${a.attemptedAt}  ${a.statusCode === null ? (a.error ?? 'no answer') : `HTTP ${a.statusCode}`}  ${a.durationMs} ms  ${a.outcome}`,
  );
  return [head, ...(lines.length === 0 ? ['    no attempt yet'] : lines)];
}
