/**
 * The database side of webhook delivery: fan-out of committed outbox rows into notifications (one per
 * active subscriber of the event's company, in one transaction with marking the row), the head of each
 * subscription's queue (strict order: only its oldest pending notification may be sent), and the record
 * of each attempt. Identifiers come from the model (the subscription and company types); values are
 * always bound parameters.
 *
 * Several instances share the queue (conventions §10): an instance sends a head only after claiming
 * it, a conditional UPDATE that sets `claimedBy` to the instance and `claimedUntil` to the end of a
 * lease longer than a POST may take; the record of the attempt ends the claim, in the same UPDATE that
 * moves the notification on, and only while the claim is still the instance's. So with no crash each
 * notification is sent by one instance once; a killed instance's claims run out and another instance
 * takes them over (at least once, never lost). Strict order per subscription holds because only the
 * head of a queue is ever claimed, and a claimed head blocks its queue for everyone else.
 */
import { randomUUID } from 'node:crypto';
import type { Engine, Statements } from '../db/engine.js';
import { HIDDEN_COLUMNS, eventKey, type EdmModel, type EntityType } from '../edm/model.js';
import { ident, sqlText, type SqlTag } from '../sql/sql-text.js';
import { ATTEMPTS_TABLE, NOTIFICATIONS_TABLE, OUTBOX_TABLE, type AttemptOutcome } from '../db/framework-tables.js';
import { notificationBody } from './notification.js';

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

/** What claiming a queue's head gave: the notification to send, or when to look again (due later, or claimed by another instance). */
export type Claim = { readonly kind: 'claimed'; readonly notification: QueuedNotification } | { readonly kind: 'later'; readonly at: number };

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

/** Statements over the outbox, the notifications and the subscription type's table. */
export class DeliveryStore {
  private readonly subscription: EntityType;
  private readonly sql: SqlTag;

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

  /**
   * Claims the oldest pending notification of a subscription (the only one that may be in flight)
   * for this instance until `leaseUntil`, when it is due and not claimed by another instance whose
   * lease still runs. Undefined when the queue is empty. The claim is a conditional UPDATE, so of two
   * instances claiming at once one gets the row; on PostgreSQL the head is read with FOR UPDATE SKIP
   * LOCKED (a head another instance is claiming is passed over, never the next one in its place).
   */
  async claim(subscriptionId: string, now: number, leaseUntil: number): Promise<Claim | undefined> {
    const sql = this.sql;
    const head = sql`SELECT "id", "subscriptionId", "webhookId", "notificationUrl", "body", "attempts", "nextAttemptAt", "claimedBy", "claimedUntil" FROM "_notifications" WHERE "id" = (SELECT min("id") FROM "_notifications" WHERE "subscriptionId" = ${subscriptionId} AND "status" = 'Pending')`;
    // A head that is not due or is held by another instance needs no write transaction (most ticks of a queue waiting for a retry).
    const seen = this.waiting(await this.engine.db.get(head), now);
    if (seen !== 'claimable') return seen;
    const lock = this.engine.dialect.rowLocks ? ' FOR UPDATE SKIP LOCKED' : '';
    return this.engine.transaction(async (tx) => {
      const row = await tx.get({ ...head, sql: head.sql + lock });
      const state = this.waiting(row, now);
      if (state !== 'claimable' || row === undefined) return state === 'claimable' ? undefined : state;
      const notification = toQueued(row);
      const taken = await tx.run(
        sql`UPDATE "_notifications" SET "claimedBy" = ${this.owner}, "claimedUntil" = ${leaseUntil} WHERE "id" = ${notification.id} AND "status" = 'Pending' AND ("claimedBy" IS NULL OR "claimedBy" = ${this.owner} OR "claimedUntil" <= ${now})`,
      );
      return taken === 1 ? { kind: 'claimed', notification } : { kind: 'later', at: now + 1000 };
    });
  }

  /** What a queue head read as `row` allows at `now`: nothing (empty queue), a later look, or a claim. */
  private waiting(row: Record<string, unknown> | undefined, now: number): Claim | undefined | 'claimable' {
    if (row === undefined) return undefined;
    const due = Number(row['nextAttemptAt']);
    if (due > now) return { kind: 'later', at: due };
    const until = row['claimedUntil'] === null ? 0 : Number(row['claimedUntil']);
    if (row['claimedBy'] !== null && row['claimedBy'] !== this.owner && until > now) return { kind: 'later', at: until };
    return 'claimable';
  }

  /** Ends this instance's claims on notifications still pending (a clean stop: other instances need not wait for the leases). */
  async releaseClaims(): Promise<number> {
    return this.engine.db.run(this.sql`UPDATE "_notifications" SET "claimedBy" = NULL, "claimedUntil" = NULL WHERE "claimedBy" = ${this.owner} AND "status" = 'Pending'`);
  }

  /** The signing secret and state of a subscription; undefined when it was deleted. */
  async target(subscriptionId: string): Promise<SubscriptionTarget | undefined> {
    const row = await this.engine.db.get(
      this.sql`SELECT ${ident(HIDDEN_COLUMNS.secret)} AS "secret", "subscriptionState" AS "state" FROM ${ident(this.subscription.table)} WHERE ${ident(this.subscription.key.name)} = ${subscriptionId}`,
    );
    return row === undefined ? undefined : { secret: (row['secret'] as string | null) ?? null, active: row['state'] === ACTIVE };
  }

  /**
   * Records an attempt and moves the notification on (Sent, Failed, or Pending until `nextAttemptAt`)
   * and ends this instance's claim, in one transaction; only while the claim is still this instance's
   * (false: its lease ran out and another instance took the notification over, which records its own).
   */
  record(notification: QueuedNotification, attempt: AttemptRecord): Promise<boolean> {
    const sql = this.sql;
    return this.engine.transaction(async (tx) => {
      const status = attempt.outcome === 'Retry' ? 'Pending' : attempt.outcome;
      const completedAt = attempt.outcome === 'Retry' ? null : new Date(attempt.attemptedAt.getTime() + attempt.durationMs).toISOString();
      const moved = await tx.run(
        sql`UPDATE "_notifications" SET "status" = ${status}, "attempts" = ${attempt.attempt}, "nextAttemptAt" = ${attempt.nextAttemptAt ?? notification.nextAttemptAt}, "lastStatusCode" = ${attempt.statusCode}, "lastError" = ${attempt.error}, "completedAt" = ${completedAt}, "claimedBy" = NULL, "claimedUntil" = NULL WHERE "id" = ${notification.id} AND "status" = 'Pending' AND "claimedBy" = ${this.owner}`,
      );
      if (moved === 0) return false;
      await tx.run(
        sql`INSERT INTO "_deliveryAttempts" ("notificationId", "attempt", "attemptedAt", "durationMs", "statusCode", "error", "outcome") VALUES (${notification.id}, ${attempt.attempt}, ${attempt.attemptedAt.toISOString()}, ${attempt.durationMs}, ${attempt.statusCode}, ${attempt.error}, ${attempt.outcome})`,
      );
      return true;
    });
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

/** A notification row as the queue hands it out (PostgreSQL returns BIGINT ids as text). */
function toQueued(row: Record<string, unknown>): QueuedNotification {
  return {
    id: Number(row['id']),
    subscriptionId: row['subscriptionId'] as string,
    webhookId: row['webhookId'] as string,
    notificationUrl: row['notificationUrl'] as string,
    body: row['body'] as string,
    attempts: Number(row['attempts']),
    nextAttemptAt: Number(row['nextAttemptAt']),
  };
}
