/**
 * The database side of entity-change subscriptions (conventions §12), the change notifications'
 * DeliveryQueue. A pass:
 * 1. deletes expired subscriptions (with their open windows);
 * 2. collects captured changes (`_changes`, written by the capture triggers of db/change-capture.ts in
 *    the writing transactions) into the window of every subscription of their company and set: one
 *    entry per entity, merged (change-merge.ts); a window past `collectionThreshold` entities keeps no
 *    entries, only that it overflowed. So the work per row written is one merge, whatever the number
 *    of rows, and the window's notification is built once;
 * 3. closes the windows `changeWindowMs` old: for each subscription still there, not expired and whose
 *    user may still read the set in the company, its entries (or one `collection` entry), and the entries
 *    of the subscriptions on one notificationUrl in one notification, fixed when built.
 * Notifications wait in lanes by notificationUrl (in order, one in flight); network errors, 408, 429 and
 * 5xx are retried until `retryForMs` after the first attempt, after which, or on any other answer, the
 * subscriptions the notification carried are deleted, as Business Central does.
 *
 * Several instances share it: collecting locks the rows it takes (PostgreSQL: FOR UPDATE, so two
 * instances take turns), closing takes windows FOR UPDATE SKIP LOCKED, and sending goes through claims
 * (notification-claims.ts). Everything is in the database, so a killed instance loses nothing: a
 * change not yet collected, a window not yet closed and a notification not yet sent are picked up by
 * the next pass of any instance (at least once).
 */
import { randomUUID } from 'node:crypto';
import type { Engine, Statements, Transaction } from '../db/engine.js';
import { HIDDEN_COLUMNS, type EdmModel, type EntityType } from '../edm/model.js';
import { allows } from '../auth/permission-sets.js';
import { keyLiteral } from '../serialize/context-url.js';
import { compile } from '../sql/compile.js';
import { col, param } from '../sql/build.js';
import { ident, sqlText, type SqlTag } from '../sql/sql-text.js';
import { CHANGE_ATTEMPTS_TABLE, CHANGE_ENTRIES_TABLE, CHANGE_NOTIFICATIONS_TABLE, CHANGE_WINDOWS_TABLE, CHANGES_TABLE } from '../db/change-capture.js';
import { CHANGE_STAMP_PROPERTY } from '../edm/check-subscriptions.js';
import { mergeChange, type CapturedChange } from './change-merge.js';
import type { DeliveryQueue } from './delivery-worker.js';
import { NotificationClaims, type AttemptRecord, type Claim, type QueuedNotification } from './notification-claims.js';
import { parseSubscriptionResource } from './subscription-resource.js';

/** Captured changes collected per transaction (a pass with more left runs again at once). */
const COLLECT_BATCH = 2000;
/** Windows closed per transaction. */
const CLOSE_BATCH = 100;
/** How often expired subscriptions are deleted, ms (conventions §12: within a minute of expirationDateTime); a tenth of the lifetime when shorter. */
const EXPIRY_SWEEP_MS = 15_000;
/** Windows on one notificationUrl due within this of a due one close with it (at most a quarter of the window), ms. */
const CLOSE_TOGETHER_MS = 5_000;
/** A collection entry's filter starts this long before the window's first change (Business Central's margin). */
const COLLECTION_MARGIN_MS = 50;

/** One entry of a notification body (conventions §12). */
export interface ChangeEntry {
  readonly subscriptionId: string;
  readonly clientState: string | null;
  readonly expirationDateTime: string;
  readonly resource: string;
  readonly changeType: CapturedChange | 'collection';
  readonly lastModifiedDateTime: string;
}

interface ChangeRow {
  readonly id: number;
  readonly companyId: string;
  readonly entitySet: string;
  readonly entityKey: string;
  readonly changeType: CapturedChange;
  readonly changedAt: string;
  readonly capturedAt: number;
}

interface SubscriptionRow {
  readonly subscriptionId: string;
  readonly companyId: string;
  readonly resource: string;
  readonly notificationUrl: string;
  readonly clientState: string | null;
  readonly userId: string;
  readonly expirationDateTime: string;
}

interface WindowRow {
  readonly subscriptionId: string;
  readonly openedAt: number;
  readonly since: string;
  readonly entries: number;
  readonly overflow: number;
}

/** The changes of one entity in one collect, in capture order. */
interface EntityChanges {
  readonly key: string;
  readonly first: ChangeRow;
  readonly changes: ChangeRow[];
}

/** `iso` moved by `ms`. */
function shifted(iso: string, ms: number): string {
  return new Date(new Date(iso).getTime() + ms).toISOString();
}

/** Statements over the captured changes, windows, entries and change notifications. */
export class ChangeStore implements DeliveryQueue {
  private readonly subscription: EntityType;
  private readonly sql: SqlTag;
  private readonly claims: NotificationClaims;
  private lastExpirySweep = 0;

  constructor(
    private readonly engine: Pick<Engine, 'db' | 'dialect' | 'transaction'>,
    private readonly model: EdmModel,
    /** Public URL of the service root, for the resource URLs in notifications. */
    private readonly serviceRootUrl: string,
    readonly owner: string = `${process.pid}-${randomUUID()}`,
  ) {
    const subscription = model.changeSubscriptionType;
    if (subscription === undefined) throw new Error('ChangeStore needs the change subscription type of service.json');
    this.subscription = subscription;
    this.sql = sqlText(engine.dialect);
    this.claims = new NotificationClaims(engine, { table: CHANGE_NOTIFICATIONS_TABLE, lane: 'notificationUrl', attempts: CHANGE_ATTEMPTS_TABLE }, owner);
  }

  private get settings(): EdmModel['service']['webhooks'] {
    return this.model.service.webhooks;
  }

  private get sweepMs(): number {
    return Math.min(EXPIRY_SWEEP_MS, this.settings.subscriptionLifetimeMs / 10);
  }

  async prepare(now: Date): Promise<number> {
    if (now.getTime() - this.lastExpirySweep >= this.sweepMs) {
      this.lastExpirySweep = now.getTime();
      await this.deleteExpired(now);
    }
    if ((await this.collect(COLLECT_BATCH)) === COLLECT_BATCH) return 0;
    const { closed, nextDue } = await this.closeDue(now.getTime());
    if (closed === CLOSE_BATCH) return 0;
    const untilExpirySweep = this.lastExpirySweep + this.sweepMs - now.getTime();
    return Math.max(0, Math.min(untilExpirySweep, nextDue === undefined ? Number.POSITIVE_INFINITY : nextDue - now.getTime()));
  }

  subscriptionsChanged(): void {
    this.lastExpirySweep = 0;
  }

  /** Deletes the subscriptions whose expirationDateTime has passed, and the windows of subscriptions that are gone. */
  async deleteExpired(now: Date): Promise<number> {
    const s = ident(this.subscription.table);
    const key = ident(this.subscription.key.name);
    const sql = this.sql;
    // Cheap when there is nothing to do (no write transaction, so no write turn taken from the writers).
    const due = await this.engine.db.get(sql`SELECT 1 AS "one" FROM ${s} WHERE "expirationDateTime" <= ${now.toISOString()} LIMIT 1`);
    const orphan = await this.engine.db.get(sql`SELECT 1 AS "one" FROM "_changeWindows" w WHERE NOT EXISTS (SELECT 1 FROM ${s} x WHERE x.${key} = w."subscriptionId") LIMIT 1`);
    if (due === undefined && orphan === undefined) return 0;
    return this.engine.transaction(async (tx) => {
      const deleted = await tx.run(sql`DELETE FROM ${s} WHERE "expirationDateTime" <= ${now.toISOString()}`);
      await tx.run(sql`DELETE FROM "_changeEntries" WHERE NOT EXISTS (SELECT 1 FROM ${s} x WHERE x.${key} = "_changeEntries"."subscriptionId")`);
      await tx.run(sql`DELETE FROM "_changeWindows" WHERE NOT EXISTS (SELECT 1 FROM ${s} x WHERE x.${key} = "_changeWindows"."subscriptionId")`);
      return deleted;
    });
  }

  /** The subscriptions of `companyId`, with the fields the windows and notifications need. */
  private async subscriptionsOf(db: Statements, companyId: string): Promise<SubscriptionRow[]> {
    const rows = await db.all(
      this.sql`SELECT ${ident(this.subscription.key.name)} AS "subscriptionId", "companyId", "resource", "notificationUrl", "clientState", "userId", "expirationDateTime" FROM ${ident(this.subscription.table)} WHERE "companyId" = ${companyId}`,
    );
    return rows as unknown as SubscriptionRow[];
  }

  /**
   * Moves up to `limit` captured changes into the windows of the subscriptions of their company and set,
   * in one transaction; returns how many it took.
   */
  async collect(limit: number): Promise<number> {
    const sql = this.sql;
    if ((await this.engine.db.get(sql`SELECT 1 AS "one" FROM "_changes" LIMIT 1`)) === undefined) return 0;
    const lock = this.engine.dialect.rowLocks ? ' FOR UPDATE' : '';
    return this.engine.transaction(async (tx) => {
      const pending = sql`SELECT "id", "companyId", "entitySet", "entityKey", "changeType", "changedAt", "capturedAt" FROM "_changes" ORDER BY "id" LIMIT ${limit}`;
      const rows = (await tx.all({ ...pending, sql: pending.sql + lock })).map((r) => ({ ...r, id: Number(r['id']), capturedAt: Number(r['capturedAt']) }) as unknown as ChangeRow);
      if (rows.length === 0) return 0;
      const now = new Date().toISOString();
      const bySet = new Map<string, ChangeRow[]>();
      for (const row of rows) {
        const k = `${row.companyId}\u0000${row.entitySet}`;
        const list = bySet.get(k);
        if (list === undefined) bySet.set(k, [row]);
        else list.push(row);
      }
      const companies = new Map<string, SubscriptionRow[]>();
      for (const changes of bySet.values()) {
        const { companyId, entitySet } = changes[0] as ChangeRow;
        let subscriptions = companies.get(companyId);
        if (subscriptions === undefined) {
          subscriptions = await this.subscriptionsOf(tx, companyId);
          companies.set(companyId, subscriptions);
        }
        const entities = byEntity(changes);
        for (const sub of subscriptions) {
          if (sub.expirationDateTime <= now) continue;
          const target = parseSubscriptionResource(this.model, sub.resource);
          if (typeof target === 'string' || target.type.entitySet !== entitySet) continue;
          await this.addToWindow(tx, sub.subscriptionId, entities);
        }
      }
      await tx.run(compile({ kind: 'delete', table: CHANGES_TABLE, where: { kind: 'inList', operand: col(CHANGES_TABLE, 'id'), items: rows.map((r) => param(r.id)), negated: false } }, this.engine.dialect));
      return rows.length;
    });
  }

  /** Merges the changes of some entities into a subscription's window (opening it at the first change). */
  private async addToWindow(tx: Transaction, subscriptionId: string, entities: readonly EntityChanges[]): Promise<void> {
    const sql = this.sql;
    const first = entities.reduce((a, e) => (e.first.id < a.id ? e.first : a), (entities[0] as EntityChanges).first);
    const earliest = entities.reduce((a, e) => e.changes.reduce((b, c) => (c.changedAt < b ? c.changedAt : b), a), first.changedAt);
    const since = shifted(earliest, -COLLECTION_MARGIN_MS);
    let window = (await tx.get(sql`SELECT "subscriptionId", "openedAt", "since", "entries", "overflow" FROM "_changeWindows" WHERE "subscriptionId" = ${subscriptionId}`)) as unknown as WindowRow | undefined;
    if (window === undefined) {
      await tx.run(sql`INSERT INTO "_changeWindows" ("subscriptionId", "openedAt", "since", "entries", "overflow") VALUES (${subscriptionId}, ${first.capturedAt}, ${since}, 0, 0)`);
      window = { subscriptionId, openedAt: first.capturedAt, since, entries: 0, overflow: 0 };
    }
    const newSince = since < window.since ? since : window.since;
    if (Number(window.overflow) === 1) {
      if (newSince !== window.since) await tx.run(sql`UPDATE "_changeWindows" SET "since" = ${newSince} WHERE "subscriptionId" = ${subscriptionId}`);
      return;
    }
    let count = Number(window.entries);
    const writes: { key: string; entry: CapturedChange | undefined; had: boolean; changedAt: string; seq: number }[] = [];
    for (const entity of entities) {
      const existing = await tx.get(sql`SELECT "changeType", "seq" FROM "_changeEntries" WHERE "subscriptionId" = ${subscriptionId} AND "entityKey" = ${entity.key}`);
      let entry = existing === undefined ? undefined : (existing['changeType'] as CapturedChange);
      for (const change of entity.changes) entry = mergeChange(entry, change.changeType);
      const last = entity.changes[entity.changes.length - 1] as ChangeRow;
      writes.push({ key: entity.key, entry, had: existing !== undefined, changedAt: last.changedAt, seq: existing === undefined ? entity.first.id : Number(existing['seq']) });
      count += (entry === undefined ? 0 : 1) - (existing === undefined ? 0 : 1);
    }
    if (count > this.settings.collectionThreshold) {
      // Past the threshold one collection entry replaces the window's entries: none is kept from now on.
      await tx.run(sql`DELETE FROM "_changeEntries" WHERE "subscriptionId" = ${subscriptionId}`);
      await tx.run(sql`UPDATE "_changeWindows" SET "overflow" = 1, "entries" = 0, "since" = ${newSince} WHERE "subscriptionId" = ${subscriptionId}`);
      return;
    }
    for (const w of writes) {
      if (w.entry === undefined) {
        if (w.had) await tx.run(sql`DELETE FROM "_changeEntries" WHERE "subscriptionId" = ${subscriptionId} AND "entityKey" = ${w.key}`);
      } else if (w.had) {
        await tx.run(sql`UPDATE "_changeEntries" SET "changeType" = ${w.entry}, "changedAt" = ${w.changedAt} WHERE "subscriptionId" = ${subscriptionId} AND "entityKey" = ${w.key}`);
      } else {
        await tx.run(sql`INSERT INTO "_changeEntries" ("subscriptionId", "entityKey", "changeType", "changedAt", "seq") VALUES (${subscriptionId}, ${w.key}, ${w.entry}, ${w.changedAt}, ${w.seq})`);
      }
    }
    await tx.run(sql`UPDATE "_changeWindows" SET "entries" = ${count}, "since" = ${newSince} WHERE "subscriptionId" = ${subscriptionId}`);
  }

  /**
   * Closes up to CLOSE_BATCH windows opened at least `changeWindowMs` before `now`, in one transaction;
   * returns how many, and when the next open window falls due.
   */
  async closeDue(now: number): Promise<{ closed: number; nextDue: number | undefined }> {
    const sql = this.sql;
    const windowMs = this.settings.changeWindowMs;
    const next = await this.engine.db.get(sql`SELECT min("openedAt") AS "openedAt" FROM "_changeWindows"`);
    const oldest = next?.['openedAt'] === null || next?.['openedAt'] === undefined ? undefined : Number(next['openedAt']);
    if (oldest === undefined || oldest + windowMs > now) return { closed: 0, nextDue: oldest === undefined ? undefined : oldest + windowMs };
    const lock = this.engine.dialect.rowLocks ? ' FOR UPDATE OF w SKIP LOCKED' : '';
    const together = Math.min(windowMs / 4, CLOSE_TOGETHER_MS);
    const s = ident(this.subscription.table);
    const key = ident(this.subscription.key.name);
    const closed = await this.engine.transaction(async (tx) => {
      // The due windows, and those of the same notificationUrls about to be due: their entries share the POST.
      const near = sql`SELECT w."subscriptionId", w."openedAt", w."since", w."entries", w."overflow", s."notificationUrl" FROM "_changeWindows" w JOIN ${s} s ON s.${key} = w."subscriptionId" WHERE w."openedAt" <= ${now - windowMs + together} ORDER BY w."openedAt" LIMIT ${CLOSE_BATCH}`;
      const candidates = (await tx.all({ ...near, sql: near.sql + lock })) as unknown as (WindowRow & { notificationUrl: string })[];
      const dueUrls = new Set(candidates.filter((w) => Number(w.openedAt) <= now - windowMs).map((w) => w.notificationUrl));
      const windows = candidates.filter((w) => dueUrls.has(w.notificationUrl));
      const posts = new Map<string, { entries: ChangeEntry[]; subscriptionIds: string[] }>();
      const nowIso = new Date(now).toISOString();
      const grants = new Map<string, Set<string>>();
      for (const window of windows) {
        const entries = await this.closeWindow(tx, window, nowIso, grants);
        await tx.run(sql`DELETE FROM "_changeEntries" WHERE "subscriptionId" = ${window.subscriptionId}`);
        await tx.run(sql`DELETE FROM "_changeWindows" WHERE "subscriptionId" = ${window.subscriptionId}`);
        if (entries === undefined || entries.entries.length === 0) continue;
        const post = posts.get(entries.notificationUrl) ?? { entries: [], subscriptionIds: [] };
        post.entries.push(...entries.entries);
        post.subscriptionIds.push(window.subscriptionId);
        posts.set(entries.notificationUrl, post);
      }
      for (const [url, post] of posts) {
        const webhookId = `msg_${randomUUID().replace(/-/g, '')}`;
        const body = JSON.stringify({ value: post.entries });
        await tx.run(
          sql`INSERT INTO "_changeNotifications" ("notificationUrl", "subscriptionIds", "webhookId", "entries", "body", "nextAttemptAt", "createdAt") VALUES (${url}, ${JSON.stringify(post.subscriptionIds)}, ${webhookId}, ${post.entries.length}, ${body}, ${now}, ${nowIso})`,
        );
      }
      return windows.length;
    });
    if (closed === CLOSE_BATCH) return { closed, nextDue: now };
    const after = await this.engine.db.get(sql`SELECT min("openedAt") AS "openedAt" FROM "_changeWindows"`);
    const first = after?.['openedAt'] === null || after?.['openedAt'] === undefined ? undefined : Number(after['openedAt']) + windowMs;
    // A due window left open has no subscription any more (the expiry sweep removes it): look again after a while.
    return { closed, nextDue: first === undefined ? undefined : Math.max(first, now + together) };
  }

  /** The entries of one closing window, or undefined when nothing may be sent (subscription gone or expired, set no longer readable). */
  private async closeWindow(tx: Transaction, window: WindowRow, nowIso: string, grants: Map<string, Set<string>>): Promise<{ notificationUrl: string; entries: ChangeEntry[] } | undefined> {
    const sql = this.sql;
    const sub = (await tx.get(
      sql`SELECT ${ident(this.subscription.key.name)} AS "subscriptionId", "companyId", "resource", "notificationUrl", "clientState", "userId", "expirationDateTime" FROM ${ident(this.subscription.table)} WHERE ${ident(this.subscription.key.name)} = ${window.subscriptionId}`,
    )) as unknown as SubscriptionRow | undefined;
    if (sub === undefined || sub.expirationDateTime <= nowIso) return undefined;
    const target = parseSubscriptionResource(this.model, sub.resource);
    if (typeof target === 'string') return undefined;
    // The subscriber hears only of what its user may read now (a revoked grant stops the notifications).
    if (!allows(await this.grantsOf(tx, sub.userId, sub.companyId, grants), target.type, 'read')) return undefined;
    const base = { subscriptionId: sub.subscriptionId, clientState: sub.clientState, expirationDateTime: sub.expirationDateTime };
    const collectionUrl = `${this.serviceRootUrl}/${this.model.company.entitySet}(${sub.companyId})/${target.type.entitySet}`;
    if (Number(window.overflow) === 1) {
      const filter = `$filter=${CHANGE_STAMP_PROPERTY}%20gt%20${window.since}`;
      return { notificationUrl: sub.notificationUrl, entries: [{ ...base, resource: `${collectionUrl}?${filter}`, changeType: 'collection', lastModifiedDateTime: nowIso }] };
    }
    const rows = await tx.all(sql`SELECT "entityKey", "changeType", "changedAt" FROM "_changeEntries" WHERE "subscriptionId" = ${window.subscriptionId} ORDER BY "seq"`);
    const entries = rows.map((r) => ({
      ...base,
      resource: `${collectionUrl}(${keyLiteral(target.type, r['entityKey'] as string)})`,
      changeType: r['changeType'] as CapturedChange,
      lastModifiedDateTime: r['changedAt'] as string,
    }));
    return { notificationUrl: sub.notificationUrl, entries };
  }

  /** The permission sets granted to a user in a company (none when the user or the grant is gone). */
  private async grantsOf(db: Statements, userId: string, companyId: string, cache: Map<string, Set<string>>): Promise<Set<string>> {
    const k = `${userId}\u0000${companyId}`;
    let sets = cache.get(k);
    if (sets === undefined) {
      const rows = await db.all(this.sql`SELECT "permissionSet" FROM "_grants" WHERE "userId" = ${userId} AND "companyId" = ${companyId}`);
      sets = new Set(rows.map((r) => r['permissionSet'] as string));
      cache.set(k, sets);
    }
    return sets;
  }

  async lanes(): Promise<string[]> {
    const rows = await this.engine.db.all(this.sql`SELECT "notificationUrl", min("id") AS "first" FROM "_changeNotifications" WHERE "status" = 'Pending' GROUP BY "notificationUrl" ORDER BY min("id")`);
    return rows.map((r) => r['notificationUrl'] as string);
  }

  claim(lane: string, now: number, leaseUntil: number): Promise<Claim | undefined> {
    return this.claims.claim(lane, now, leaseUntil);
  }

  releaseClaims(): Promise<number> {
    return this.claims.releaseClaims();
  }

  /** The signing secrets of the subscriptions the notification carries that still exist. */
  async secrets(notification: QueuedNotification): Promise<readonly string[] | string> {
    const secrets: string[] = [];
    for (const id of notification.subscriptionIds) {
      const row = await this.engine.db.get(this.sql`SELECT ${ident(HIDDEN_COLUMNS.secret)} AS "secret" FROM ${ident(this.subscription.table)} WHERE ${ident(this.subscription.key.name)} = ${id}`);
      const secret = row?.['secret'];
      if (typeof secret === 'string') secrets.push(secret);
    }
    return secrets.length > 0 ? secrets : 'The subscriptions were deleted.';
  }

  /** The schedule's delay for retry `attempt` (its last one repeating) while it ends within `retryForMs` of the first attempt. */
  retryDelay(notification: QueuedNotification, attempt: number, now: number, backoffMs: readonly number[]): number | undefined {
    const delay = backoffMs[Math.min(attempt, backoffMs.length) - 1];
    if (delay === undefined) return undefined;
    const first = notification.firstAttemptAt ?? now;
    return now + delay <= first + this.settings.retryForMs ? delay : undefined;
  }

  /** Records an attempt (notification-claims.ts); a Failed outcome deletes the subscriptions the notification carried, as Business Central does. */
  record(notification: QueuedNotification, attempt: AttemptRecord): Promise<boolean> {
    return this.claims.record(notification, attempt, async (tx) => {
      if (attempt.outcome !== 'Failed') return;
      const s = ident(this.subscription.table);
      const key = ident(this.subscription.key.name);
      for (const id of notification.subscriptionIds) {
        await tx.run(this.sql`DELETE FROM ${s} WHERE ${key} = ${id}`);
        await tx.run(this.sql`DELETE FROM "_changeEntries" WHERE "subscriptionId" = ${id}`);
        await tx.run(this.sql`DELETE FROM "_changeWindows" WHERE "subscriptionId" = ${id}`);
      }
    });
  }
}

/** Changes grouped by entity, in the order of each entity's first change. */
function byEntity(changes: readonly ChangeRow[]): EntityChanges[] {
  const map = new Map<string, EntityChanges>();
  for (const change of changes) {
    const entity = map.get(change.entityKey);
    if (entity === undefined) map.set(change.entityKey, { key: change.entityKey, first: change, changes: [change] });
    else entity.changes.push(change);
  }
  return [...map.values()];
}
