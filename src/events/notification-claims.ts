/**
 * Claims on the heads of notification lanes, shared by both notification queues (business events:
 * `_notifications` by subscription; entity changes: `_changeNotifications` by notificationUrl). An
 * instance sends a head only after claiming it: a conditional UPDATE that sets `claimedBy` to the
 * instance and `claimedUntil` to the end of a lease longer than a POST may take; recording the attempt
 * ends the claim. A killed instance's claims run out and another instance takes them over (at least
 * once, never lost); only the head of a lane is ever claimed, so each lane keeps its order.
 */
import type { Engine, Transaction } from '../db/engine.js';
import type { AttemptOutcome } from '../db/framework-tables.js';
import { ident, sqlText, type SqlTag } from '../sql/sql-text.js';

/** A notification at the head of its lane. */
export interface QueuedNotification {
  readonly id: number;
  /** The queue it waits in: one notification of a lane is in flight at a time, in id order. */
  readonly lane: string;
  readonly webhookId: string;
  readonly notificationUrl: string;
  readonly body: string;
  readonly attempts: number;
  readonly nextAttemptAt: number;
  /** When the first attempt was made, ms since the epoch (null before it; kept by queues that retry for a time). */
  readonly firstAttemptAt: number | null;
  /** The subscriptions whose entries it carries (entity changes: several on one notificationUrl). */
  readonly subscriptionIds: readonly string[];
}

/** What claiming a lane's head gave: the notification to send, or when to look again (due later, or claimed by another instance). */
export type Claim = { readonly kind: 'claimed'; readonly notification: QueuedNotification } | { readonly kind: 'later'; readonly at: number };

/** The table of a queue, the column that names a notification's lane, and the table of its attempts. */
export interface QueueTable {
  readonly table: string;
  readonly lane: 'subscriptionId' | 'notificationUrl';
  readonly attempts: string;
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

/** Claims of one instance on one queue table. */
export class NotificationClaims {
  private readonly sql: SqlTag;

  constructor(
    private readonly engine: Pick<Engine, 'db' | 'dialect' | 'transaction'>,
    private readonly queue: QueueTable,
    /** This instance, as its claims name it. */
    readonly owner: string,
  ) {
    this.sql = sqlText(engine.dialect);
  }

  /**
   * Claims the oldest pending notification of a lane for this instance until `leaseUntil`, when it is
   * due and not claimed by another instance whose lease still runs. Undefined when the lane is empty.
   * Of two instances claiming at once one gets the row; on PostgreSQL the head is read with FOR UPDATE
   * SKIP LOCKED (a head another instance is claiming is passed over, never the next one in its place).
   */
  async claim(lane: string, now: number, leaseUntil: number): Promise<Claim | undefined> {
    const sql = this.sql;
    const t = ident(this.queue.table);
    const l = ident(this.queue.lane);
    const head = sql`SELECT * FROM ${t} WHERE "id" = (SELECT min("id") FROM ${t} WHERE ${l} = ${lane} AND "status" = 'Pending')`;
    // A head that is not due or is held by another instance needs no write transaction (most looks at a lane waiting for a retry).
    const seen = this.waiting(await this.engine.db.get(head), now);
    if (seen !== 'claimable') return seen;
    const lock = this.engine.dialect.rowLocks ? ' FOR UPDATE SKIP LOCKED' : '';
    return this.engine.transaction(async (tx) => {
      const row = await tx.get({ ...head, sql: head.sql + lock });
      const state = this.waiting(row, now);
      if (state !== 'claimable' || row === undefined) return state === 'claimable' ? undefined : state;
      const notification = this.toQueued(row);
      const taken = await tx.run(
        sql`UPDATE ${t} SET "claimedBy" = ${this.owner}, "claimedUntil" = ${leaseUntil} WHERE "id" = ${notification.id} AND "status" = 'Pending' AND ("claimedBy" IS NULL OR "claimedBy" = ${this.owner} OR "claimedUntil" <= ${now})`,
      );
      return taken === 1 ? { kind: 'claimed', notification } : { kind: 'later', at: now + 1000 };
    });
  }

  /** What a lane head read as `row` allows at `now`: nothing (empty lane), a later look, or a claim. */
  private waiting(row: Record<string, unknown> | undefined, now: number): Claim | undefined | 'claimable' {
    if (row === undefined) return undefined;
    const due = Number(row['nextAttemptAt']);
    if (due > now) return { kind: 'later', at: due };
    const until = row['claimedUntil'] === null ? 0 : Number(row['claimedUntil']);
    if (row['claimedBy'] !== null && row['claimedBy'] !== this.owner && until > now) return { kind: 'later', at: until };
    return 'claimable';
  }

  /** Ends this instance's claims on notifications still pending (a clean stop: other instances need not wait for the leases). */
  releaseClaims(): Promise<number> {
    return Promise.resolve(this.engine.db.run(this.sql`UPDATE ${ident(this.queue.table)} SET "claimedBy" = NULL, "claimedUntil" = NULL WHERE "claimedBy" = ${this.owner} AND "status" = 'Pending'`));
  }

  /**
   * Records an attempt and moves the notification on (Sent, Failed, or Pending until `nextAttemptAt`)
   * and ends this instance's claim, in one transaction with `then` (what else the outcome changes);
   * only while the claim is still this instance's (false: its lease ran out and another instance took
   * the notification over, which records its own).
   */
  record(notification: QueuedNotification, attempt: AttemptRecord, then?: (tx: Transaction) => Promise<void>): Promise<boolean> {
    const sql = this.sql;
    const t = ident(this.queue.table);
    return this.engine.transaction(async (tx) => {
      const status = attempt.outcome === 'Retry' ? 'Pending' : attempt.outcome;
      const completedAt = attempt.outcome === 'Retry' ? null : new Date(attempt.attemptedAt.getTime() + attempt.durationMs).toISOString();
      const moved = await tx.run(
        sql`UPDATE ${t} SET "status" = ${status}, "attempts" = ${attempt.attempt}, "nextAttemptAt" = ${attempt.nextAttemptAt ?? notification.nextAttemptAt}, "firstAttemptAt" = COALESCE("firstAttemptAt", ${attempt.attemptedAt.getTime()}), "lastStatusCode" = ${attempt.statusCode}, "lastError" = ${attempt.error}, "completedAt" = ${completedAt}, "claimedBy" = NULL, "claimedUntil" = NULL WHERE "id" = ${notification.id} AND "status" = 'Pending' AND "claimedBy" = ${this.owner}`,
      );
      if (moved === 0) return false;
      await tx.run(
        sql`INSERT INTO ${ident(this.queue.attempts)} ("notificationId", "attempt", "attemptedAt", "durationMs", "statusCode", "error", "outcome") VALUES (${notification.id}, ${attempt.attempt}, ${attempt.attemptedAt.toISOString()}, ${attempt.durationMs}, ${attempt.statusCode}, ${attempt.error}, ${attempt.outcome})`,
      );
      await then?.(tx);
      return true;
    });
  }

  /** A notification row as the queue hands it out (PostgreSQL returns BIGINT ids as text, json columns parsed). */
  private toQueued(row: Record<string, unknown>): QueuedNotification {
    const ids = row['subscriptionIds'];
    const body = row['body'];
    return {
      id: Number(row['id']),
      lane: String(row[this.queue.lane]),
      webhookId: row['webhookId'] as string,
      notificationUrl: row['notificationUrl'] as string,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      attempts: Number(row['attempts']),
      nextAttemptAt: Number(row['nextAttemptAt']),
      firstAttemptAt: row['firstAttemptAt'] === undefined || row['firstAttemptAt'] === null ? null : Number(row['firstAttemptAt']),
      subscriptionIds: ids === undefined ? [String(row['subscriptionId'])] : ((typeof ids === 'string' ? JSON.parse(ids) : ids) as string[]),
    };
  }
}
