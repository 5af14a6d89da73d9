/**
 * The database side of webhook delivery: fan-out of committed outbox rows into notifications (one per
 * active subscriber of the event's company, in one transaction with marking the row), the head of each
 * subscription's queue (strict order: only its oldest pending notification may be sent), and the record
 * of each attempt. Identifiers come from the model (the subscription and company types); values are
 * always bound parameters.
 *
 * Several instances share the queue (conventions §10) through claims on each subscription's head
 * (notification-claims.ts); the record of an attempt ends the claim, in the same UPDATE that moves the
 * notification on, and only while the claim is still the instance's.
 */
import { randomUUID } from 'node:crypto';
import type { Engine, Statements } from '../db/engine.js';
import { HIDDEN_COLUMNS, eventKey, type EdmModel, type EntityType } from '../edm/model.js';
import { ident, sqlText, type SqlTag } from '../sql/sql-text.js';
import { ATTEMPTS_TABLE, NOTIFICATIONS_TABLE, OUTBOX_TABLE, type AttemptOutcome } from '../db/framework-tables.js';
import { notificationBody } from './notification.js';
import type { DeliveryQueue } from './delivery-worker.js';
import { NotificationClaims, type AttemptRecord, type Claim, type QueuedNotification } from './notification-claims.js';

export type { AttemptRecord, Claim, QueuedNotification } from './notification-claims.js';


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

/** Outbox rows fanned out per transaction (a pass with more left runs again at once). */
const FAN_OUT_BATCH = 500;
/** How often pending notifications of deleted subscriptions are marked Failed, ms (at once after a subscription change). */
const ORPHAN_SWEEP_MS = 30_000;

/** Statements over the outbox, the notifications and the subscription type's table: the business events' DeliveryQueue. */
export class DeliveryStore implements DeliveryQueue {
  private readonly subscription: EntityType;
  private readonly sql: SqlTag;
  private lastSweep = 0;
  private readonly claims: NotificationClaims;

  constructor(
    private readonly engine: Pick<Engine, 'db' | 'dialect' | 'transaction'>,
    private readonly model: EdmModel,
    /** Public URL of the service root, for the entity URLs in notifications. */
    private readonly serviceRootUrl: string,
    /** This instance, as its claims name it (unique per process start). */
    readonly owner: string = `${process.pid}-${randomUUID()}`,
  ) {
    const types = model.eventTypes;
    if (types === undefined) throw new Error('DeliveryStore needs the event entity types of service.json');
    this.subscription = types.subscription;
    this.sql = sqlText(engine.dialect);
    this.claims = new NotificationClaims(engine, { table: NOTIFICATIONS_TABLE, lane: 'subscriptionId', attempts: ATTEMPTS_TABLE }, owner);
  }

  private async companyName(db: Statements, id: string, names: Map<string, string>): Promise<string> {
    let name = names.get(id);
    if (name === undefined) {
      const company = this.model.company;
      const row = await db.get(this.sql`SELECT "name" FROM ${ident(company.table)} WHERE ${ident(company.key.name)} = ${id}`);
      name = String(row?.['name'] ?? '');
      names.set(id, name);
    }
    return name;
  }

  /** Marks orphans Failed (every ORPHAN_SWEEP_MS) and fans the outbox out; 0 when more is left to fan out. */
  async prepare(now: Date): Promise<number> {
    if (now.getTime() - this.lastSweep >= ORPHAN_SWEEP_MS) {
      this.lastSweep = now.getTime();
      await this.failOrphans(now);
    }
    return (await this.fanOut(now, FAN_OUT_BATCH)) === FAN_OUT_BATCH ? 0 : Number.POSITIVE_INFINITY;
  }

  subscriptionsChanged(): void {
    this.lastSweep = 0;
  }

  /** The delay of retry `attempt`, while the schedule has one: the attempt after the last is final. */
  retryDelay(_notification: QueuedNotification, attempt: number, _now: number, backoffMs: readonly number[]): number | undefined {
    return backoffMs[attempt - 1];
  }

  /**
   * Turns up to `limit` pending outbox rows into notifications, in one transaction: one per active
   * subscription of the row's company, event and version (none: the row is simply done). Returns the
   * number of outbox rows handled.
   */
  async fanOut(now: Date, limit: number): Promise<number> {
    // Nothing pending (every poll of an idle instance): no write transaction, so no write turn taken from the writers.
    if ((await this.engine.db.get(this.sql`SELECT 1 AS "one" FROM "_outbox" WHERE "status" = 'Pending' LIMIT 1`)) === undefined) return 0;
    return this.fanOutPending(now, limit);
  }

  private fanOutPending(now: Date, limit: number): Promise<number> {
    const app = this.model.app;
    const sql = this.sql;
    const s = ident(this.subscription.table);
    const key = ident(this.subscription.key.name);
    const lock = this.engine.dialect.rowLocks ? ' FOR UPDATE' : '';
    return this.engine.transaction(async (tx) => {
      const names = new Map<string, string>();
      // Locked, not skipped: two instances fanning out at once take turns, so notification ids keep the events' order.
      const pending = sql`SELECT "id", "companyId", "eventName", "eventVersion", "payload", "userId", "createdAt" FROM "_outbox" WHERE "status" = 'Pending' ORDER BY "id" LIMIT ${limit}`;
      const rows = (await tx.all({ ...pending, sql: pending.sql + lock })) as unknown as OutboxRow[];
      for (const row of rows) {
        const event = this.model.eventByKey.get(eventKey(row.eventName, row.eventVersion));
        if (event !== undefined && app !== undefined && row.companyId !== null) {
          const subscribers = (await tx.all(
            sql`SELECT ${key} AS "id", "notificationUrl", "clientState" FROM ${s} WHERE "companyId" = ${row.companyId} AND "appId" = ${app.id} AND "eventName" = ${row.eventName} AND "eventVersion" = ${row.eventVersion} AND "subscriptionState" = ${ACTIVE} ORDER BY ${key}`,
          )) as unknown as SubscriberRow[];
          const payload = JSON.parse(row.payload) as Record<string, unknown>;
          for (const sub of subscribers) {
            const body = notificationBody({
              model: this.model,
              event,
              appId: app.id,
              companyId: row.companyId,
              companyName: await this.companyName(tx, row.companyId, names),
              userId: row.userId,
              timestamp: row.createdAt,
              clientState: sub.clientState,
              payload,
              serviceRootUrl: this.serviceRootUrl,
            });
            const webhookId = `msg_${randomUUID().replace(/-/g, '')}`;
            await tx.run(
              sql`INSERT INTO "_notifications" ("outboxId", "subscriptionId", "webhookId", "companyId", "eventName", "eventVersion", "notificationUrl", "body", "nextAttemptAt", "createdAt") VALUES (${row.id}, ${sub.id}, ${webhookId}, ${row.companyId}, ${row.eventName}, ${row.eventVersion}, ${sub.notificationUrl}, ${body}, ${now.getTime()}, ${now.toISOString()}) ON CONFLICT DO NOTHING`,
            );
          }
        }
        await tx.run(sql`UPDATE "_outbox" SET "status" = 'Delivered' WHERE "id" = ${row.id}`);
      }
      return rows.length;
    });
  }

  /** Ids of active subscriptions with pending notifications. */
  async lanes(): Promise<string[]> {
    const s = ident(this.subscription.table);
    const key = ident(this.subscription.key.name);
    const rows = await this.engine.db.all(
      this.sql`SELECT s.${key} AS "id" FROM ${s} s WHERE s."subscriptionState" = ${ACTIVE} AND EXISTS (SELECT 1 FROM "_notifications" x WHERE x."subscriptionId" = s.${key} AND x."status" = 'Pending') ORDER BY s.${key}`,
    );
    return rows.map((r) => r['id'] as string);
  }

  claim(lane: string, now: number, leaseUntil: number): Promise<Claim | undefined> {
    return this.claims.claim(lane, now, leaseUntil);
  }

  /** Ends this instance's claims on notifications still pending (a clean stop: other instances need not wait for the leases). */
  releaseClaims(): Promise<number> {
    return this.claims.releaseClaims();
  }

  /** The subscription's signing secret; why the notification cannot be sent when it was deleted or has none. */
  async secrets(notification: QueuedNotification): Promise<readonly string[] | string> {
    const row = await this.engine.db.get(
      this.sql`SELECT ${ident(HIDDEN_COLUMNS.secret)} AS "secret" FROM ${ident(this.subscription.table)} WHERE ${ident(this.subscription.key.name)} = ${notification.lane}`,
    );
    if (row === undefined) return 'The subscription was deleted.';
    const secret = row['secret'] as string | null;
    return secret === null ? 'The subscription has no signing secret.' : [secret];
  }

  record(notification: QueuedNotification, attempt: AttemptRecord): Promise<boolean> {
    return this.claims.record(notification, attempt);
  }

  /** Marks the pending notifications of deleted subscriptions Failed; returns how many. */
  failOrphans(now: Date): Promise<number> {
    const s = ident(this.subscription.table);
    const key = ident(this.subscription.key.name);
    return Promise.resolve(
      this.engine.db.run(
        this.sql`UPDATE "_notifications" SET "status" = 'Failed', "lastError" = 'The subscription was deleted.', "completedAt" = ${now.toISOString()} WHERE "status" = 'Pending' AND "subscriptionId" NOT IN (SELECT ${key} FROM ${s})`,
      ),
    );
  }
}
