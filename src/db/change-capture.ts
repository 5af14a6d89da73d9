/**
 * Change capture for entity-change subscriptions (conventions §12), shared by both engines: which sets
 * are captured and what the triggers write. Each subscribable set's table has triggers (one file per
 * engine: sqlite/sqlite-change-capture.ts, postgres/postgres-change-capture.ts) that, while a
 * subscription names the row's company and set, add one row per written entity to `_changes`, in the
 * writing transaction. So every write path is captured (the API, batches, actions, cascades, rules,
 * `ecn-odata import`, any program writing the tables), a rolled-back write leaves nothing, and a company
 * nobody subscribes to pays one indexed lookup per row. The delivery side (events/change-store.ts)
 * turns `_changes` into each subscription's window of entries.
 */
import type { EdmModel, EntityType } from '../edm/model.js';

/** Captured changes: one row per written entity of a subscribed set (updates merged while not collected), removed once collected. */
export const CHANGES_TABLE = '_changes';

/** A subscription's open window: when its first change was captured, and how many entities it holds. */
export const CHANGE_WINDOWS_TABLE = '_changeWindows';

/** One entry per subscription and entity in an open window (merged: created then updated is created). */
export const CHANGE_ENTRIES_TABLE = '_changeEntries';

/** One POST per notificationUrl and closing windows, its body fixed when built. */
export const CHANGE_NOTIFICATIONS_TABLE = '_changeNotifications';

/** One row per attempt to send a change notification. */
export const CHANGE_ATTEMPTS_TABLE = '_changeAttempts';

/** Prefix of the capture triggers' (and PostgreSQL functions') names, so stale ones can be found and dropped. */
export const CAPTURE_TRIGGER_PREFIX = '_changes_';

/** What a capture trigger of one set needs to know. */
export interface CapturedSet {
  readonly type: EntityType;
  /** The subscription type's table and its company and resource columns. */
  readonly subscriptions: string;
}

/** The sets whose changes are captured: the subscribable ones, when the model has the subscription type. */
export function capturedSets(model: EdmModel): CapturedSet[] {
  const subscription = model.changeSubscriptionType;
  if (subscription === undefined) return [];
  return model.entityTypes.filter((t) => t.subscribable && t.scope === 'company').map((type) => ({ type, subscriptions: subscription.table }));
}

/**
 * Which pending row an update of an entity merges into: its `updated` row not yet collected. Only updates
 * are merged when captured (a hot entity written many times keeps one row, found through a partial index
 * of the `updated` rows), so an insert, such as each row of an import, appends without an index to keep;
 * the collector merges what remains (events/change-merge.ts).
 */
export function pendingUpdate(quote: (name: string) => string, company: string, set: string, key: string): string {
  return `${quote(CHANGES_TABLE)}."entityKey" = ${key} AND ${quote(CHANGES_TABLE)}."entitySet" = '${set}' AND ${quote(CHANGES_TABLE)}."companyId" = ${company} AND ${quote(CHANGES_TABLE)}."changeType" = 'updated'`;
}

/** The LIKE pattern a subscription's resource matches when it names the set (every accepted form ends with `/<set>`). */
export function resourcePattern(type: EntityType): string {
  return `%/${type.entitySet}`;
}
