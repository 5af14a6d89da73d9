/**
 * The operator's view of webhook delivery (`ecn-odata deliveries`): notifications, newest first, each
 * with its attempts (time, status code or network error, duration, outcome).
 */
import type { Database } from '../db/database.js';
import { sqliteDialect } from '../sql/sqlite-dialect.js';
import { ATTEMPTS_TABLE, NOTIFICATIONS_TABLE, type AttemptOutcome, type NotificationStatus } from './delivery-tables.js';

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

const q = (name: string): string => sqliteDialect.quoteIdentifier(name);

/** The notifications matching `query`, newest first, with their attempts in order. */
export function listDeliveries(db: Database, query: DeliveryQuery): DeliveryEntry[] {
  const where = query.status === undefined ? '' : 'WHERE "status" = ?';
  const params: (string | number)[] = query.status === undefined ? [query.limit] : [query.status, query.limit];
  const rows = db.raw
    .prepare(
      `SELECT "id", "webhookId", "status", "eventName", "eventVersion", "companyId", "subscriptionId", "notificationUrl", "createdAt", "completedAt", "nextAttemptAt" ` +
        `FROM ${q(NOTIFICATIONS_TABLE)} ${where} ORDER BY "id" DESC LIMIT ?`,
    )
    .all(...params) as (Omit<DeliveryEntry, 'attempts' | 'nextAttemptAt'> & { nextAttemptAt: number })[];
  const attempts = db.raw.prepare(
    `SELECT "attempt", "attemptedAt", "durationMs", "statusCode", "error", "outcome" FROM ${q(ATTEMPTS_TABLE)} WHERE "notificationId" = ? ORDER BY "attempt", "id"`,
  );
  return rows.map((row) => ({
    ...row,
    nextAttemptAt: row.status === 'Pending' ? new Date(row.nextAttemptAt).toISOString() : null,
    attempts: attempts.all(row.id) as AttemptEntry[],
  }));
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
