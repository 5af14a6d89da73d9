/**
 * The database side of webhook delivery: fan-out of committed outbox rows into notifications (one per
 * active subscriber of the event's company, in one transaction with marking the row), the head of each
 * subscription's queue (strict order: only its oldest pending notification may be sent), and the record
 * of each attempt. Identifiers come from the model (the subscription and company types); values are
 * always bound parameters.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.js';
import { HIDDEN_COLUMNS, eventKey, type EdmModel, type EntityType } from '../edm/model.js';
import { sqliteDialect } from '../sql/sqlite-dialect.js';
import { ATTEMPTS_TABLE, NOTIFICATIONS_TABLE, type AttemptOutcome } from './delivery-tables.js';
import { notificationBody } from './notification.js';
import { OUTBOX_TABLE } from './outbox.js';

const q = (name: string): string => sqliteDialect.quoteIdentifier(name);

/** A notification at the head of its subscription's queue. */
export interface QueuedNotification {
  readonly id: number;
  readonly subscriptionId: string;
  readonly webhookId: string;
  readonly notificationUrl: string;
  readonly body: string;
  readonly attempts: number;
  readonly nextAttemptAt: number;
}

/** What the sender needs of a subscription. */
export interface SubscriptionTarget {
  readonly secret: string | null;
  readonly active: boolean;
}

/** One finished attempt. */
export interface AttemptRecord {
  readonly attempt: number;
  readonly attemptedAt: Date;
  readonly durationMs: number;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly outcome: AttemptOutcome;
  /** When the next attempt may run (Retry only), ms since the epoch. */
  readonly nextAttemptAt?: number;
}

interface OutboxRow {
  readonly id: number;
  readonly companyId: string | null;
  readonly eventName: string;
  readonly eventVersion: string;
  readonly payload: string;
  readonly userId: string | null;
  readonly createdAt: string;
}

interface SubscriberRow {
  readonly id: string;
  readonly notificationUrl: string;
  readonly clientState: string | null;
}

const ACTIVE = 'Active';

/** Prepared statements over the outbox, the notifications and the subscription type's table. */
export class DeliveryStore {
  private readonly subscription: EntityType;
  private readonly companyNames = new Map<string, string>();
  private readonly stmt;

  constructor(
    private readonly db: Database,
    private readonly model: EdmModel,
    /** Public URL of the service root, for the entity URLs in notifications. */
    private readonly serviceRootUrl: string,
  ) {
    const types = model.eventTypes;
    if (types === undefined) throw new Error('DeliveryStore needs the event entity types of service.json');
    this.subscription = types.subscription;
    const s = q(this.subscription.table);
    const key = q(this.subscription.key.name);
    const n = q(NOTIFICATIONS_TABLE);
    const raw = db.raw;
    this.stmt = {
      pendingOutbox: raw.prepare(`SELECT "id", "companyId", "eventName", "eventVersion", "payload", "userId", "createdAt" FROM ${q(OUTBOX_TABLE)} WHERE "status" = 'Pending' ORDER BY "id" LIMIT ?`),
      markOutbox: raw.prepare(`UPDATE ${q(OUTBOX_TABLE)} SET "status" = 'Delivered' WHERE "id" = ?`),
      subscribers: raw.prepare(
        `SELECT ${key} AS "id", "notificationUrl", "clientState" FROM ${s} WHERE "companyId" = ? AND "appId" = ? AND "eventName" = ? AND "eventVersion" = ? AND "subscriptionState" = '${ACTIVE}' ORDER BY ${key}`,
      ),
      companyName: raw.prepare(`SELECT "name" FROM ${q(model.company.table)} WHERE ${q(model.company.key.name)} = ?`),
      insertNotification: raw.prepare(
        `INSERT OR IGNORE INTO ${n} ("outboxId", "subscriptionId", "webhookId", "companyId", "eventName", "eventVersion", "notificationUrl", "body", "nextAttemptAt", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      lanes: raw.prepare(
        `SELECT s.${key} AS "id" FROM ${s} s WHERE s."subscriptionState" = '${ACTIVE}' AND EXISTS (SELECT 1 FROM ${n} x WHERE x."subscriptionId" = s.${key} AND x."status" = 'Pending') ORDER BY s.${key}`,
      ),
      head: raw.prepare(
        `SELECT "id", "subscriptionId", "webhookId", "notificationUrl", "body", "attempts", "nextAttemptAt" FROM ${n} WHERE "subscriptionId" = ? AND "status" = 'Pending' ORDER BY "id" LIMIT 1`,
      ),
      target: raw.prepare(`SELECT ${q(HIDDEN_COLUMNS.secret)} AS "secret", "subscriptionState" AS "state" FROM ${s} WHERE ${key} = ?`),
      insertAttempt: raw.prepare(`INSERT INTO ${q(ATTEMPTS_TABLE)} ("notificationId", "attempt", "attemptedAt", "durationMs", "statusCode", "error", "outcome") VALUES (?, ?, ?, ?, ?, ?, ?)`),
      updateNotification: raw.prepare(
        `UPDATE ${n} SET "status" = ?, "attempts" = ?, "nextAttemptAt" = ?, "lastStatusCode" = ?, "lastError" = ?, "completedAt" = ? WHERE "id" = ? AND "status" = 'Pending'`,
      ),
      failOrphans: raw.prepare(
        `UPDATE ${n} SET "status" = 'Failed', "lastError" = 'The subscription was deleted.', "completedAt" = ? WHERE "status" = 'Pending' AND "subscriptionId" NOT IN (SELECT ${key} FROM ${s})`,
      ),
    };
  }

  private companyName(id: string): string {
    let name = this.companyNames.get(id);
    if (name === undefined) {
      name = String((this.stmt.companyName.get(id) as { name?: unknown } | undefined)?.name ?? '');
      this.companyNames.set(id, name);
    }
    return name;
  }

  /**
   * Turns up to `limit` pending outbox rows into notifications, in one transaction: one per active
   * subscription of the row's company, event and version (none: the row is simply done). Returns the
   * number of outbox rows handled.
   */
  fanOut(now: Date, limit: number): number {
    const app = this.model.app;
    return this.db.transaction(() => {
      const rows = this.stmt.pendingOutbox.all(limit) as OutboxRow[];
      for (const row of rows) {
        const event = this.model.eventByKey.get(eventKey(row.eventName, row.eventVersion));
        if (event !== undefined && app !== undefined && row.companyId !== null) {
          const subscribers = this.stmt.subscribers.all(row.companyId, app.id, row.eventName, row.eventVersion) as SubscriberRow[];
          const payload = JSON.parse(row.payload) as Record<string, unknown>;
          for (const sub of subscribers) {
            const body = notificationBody({
              model: this.model,
              event,
              appId: app.id,
              companyId: row.companyId,
              companyName: this.companyName(row.companyId),
              userId: row.userId,
              timestamp: row.createdAt,
              clientState: sub.clientState,
              payload,
              serviceRootUrl: this.serviceRootUrl,
            });
            const webhookId = `msg_${randomUUID().replace(/-/g, '')}`;
            this.stmt.insertNotification.run(row.id, sub.id, webhookId, row.companyId, row.eventName, row.eventVersion, sub.notificationUrl, body, now.getTime(), now.toISOString());
          }
        }
        this.stmt.markOutbox.run(row.id);
      }
      return rows.length;
    });
  }

  /** Ids of active subscriptions with pending notifications. */
  lanes(): string[] {
    return (this.stmt.lanes.all() as { id: string }[]).map((r) => r.id);
  }

  /** The oldest pending notification of a subscription (the only one that may be in flight). */
  head(subscriptionId: string): QueuedNotification | undefined {
    return this.stmt.head.get(subscriptionId) as QueuedNotification | undefined;
  }

  /** The signing secret and state of a subscription; undefined when it was deleted. */
  target(subscriptionId: string): SubscriptionTarget | undefined {
    const row = this.stmt.target.get(subscriptionId) as { secret: string | null; state: string } | undefined;
    return row === undefined ? undefined : { secret: row.secret, active: row.state === ACTIVE };
  }

  /** Records an attempt and moves the notification on (Sent, Failed, or Pending until `nextAttemptAt`), in one transaction. */
  record(notification: QueuedNotification, attempt: AttemptRecord): void {
    this.db.transaction(() => {
      this.stmt.insertAttempt.run(notification.id, attempt.attempt, attempt.attemptedAt.toISOString(), attempt.durationMs, attempt.statusCode, attempt.error, attempt.outcome);
      const status = attempt.outcome === 'Retry' ? 'Pending' : attempt.outcome;
      const completedAt = attempt.outcome === 'Retry' ? null : new Date(attempt.attemptedAt.getTime() + attempt.durationMs).toISOString();
      this.stmt.updateNotification.run(status, attempt.attempt, attempt.nextAttemptAt ?? notification.nextAttemptAt, attempt.statusCode, attempt.error, completedAt, notification.id);
    });
  }

  /** Marks the pending notifications of deleted subscriptions Failed; returns how many. */
  failOrphans(now: Date): number {
    return this.stmt.failOrphans.run(now.toISOString()).changes;
  }
}
