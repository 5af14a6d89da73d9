/**
 * Change capture on SQLite (db/change-capture.ts): the tables of captured changes, windows, entries,
 * notifications and attempts, and per subscribable table three triggers (insert, update of the row
 * version, delete) that write `_changes` while a subscription names the row's company and set. Made at
 * every start inside the migration's transaction: the triggers of sets no longer subscribable are dropped.
 */
import { HIDDEN_COLUMNS } from '../../edm/model.js';
import { CHANGE_STAMP_PROPERTY } from '../../edm/check-subscriptions.js';
import {
  CAPTURE_TRIGGER_PREFIX,
  CHANGE_ATTEMPTS_TABLE,
  CHANGE_ENTRIES_TABLE,
  CHANGE_NOTIFICATIONS_TABLE,
  CHANGE_WINDOWS_TABLE,
  CHANGES_TABLE,
  capturedSets,
  pendingUpdate,
  resourcePattern,
  type CapturedSet,
} from '../change-capture.js';
import type { EdmModel } from '../../edm/model.js';
import type { Database } from './sqlite-database.js';
import { sqliteDialect } from './sqlite-dialect.js';
import { attemptsTableSql } from './sqlite-framework-tables.js';

const q = (name: string): string => sqliteDialect.quoteIdentifier(name);

/** Milliseconds since the epoch, now. */
const NOW_MS = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";
/** Now as the ISO text lastModifiedDateTime holds. */
const NOW_ISO = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/** The statements that create the change tables when missing. */
export function changeTablesSql(): string[] {
  return [
    // A plain rowid (no AUTOINCREMENT: no sqlite_sequence write per captured row); ids only order the rows present.
    `CREATE TABLE IF NOT EXISTS ${q(CHANGES_TABLE)} ("id" INTEGER PRIMARY KEY, "companyId" TEXT NOT NULL, "entitySet" TEXT NOT NULL, ` +
      `"entityKey" TEXT NOT NULL, "changeType" TEXT NOT NULL, "changedAt" TEXT NOT NULL, "capturedAt" INTEGER NOT NULL)`,
    `CREATE INDEX IF NOT EXISTS ${q(`${CHANGES_TABLE}_ix_updated`)} ON ${q(CHANGES_TABLE)}("entityKey") WHERE "changeType" = 'updated'`,
    `CREATE TABLE IF NOT EXISTS ${q(CHANGE_WINDOWS_TABLE)} ("subscriptionId" TEXT NOT NULL PRIMARY KEY, "openedAt" INTEGER NOT NULL, "since" TEXT NOT NULL, ` +
      `"entries" INTEGER NOT NULL DEFAULT 0, "overflow" INTEGER NOT NULL DEFAULT 0) STRICT`,
    `CREATE INDEX IF NOT EXISTS ${q(`${CHANGE_WINDOWS_TABLE}_ix_openedAt`)} ON ${q(CHANGE_WINDOWS_TABLE)}("openedAt")`,
    `CREATE TABLE IF NOT EXISTS ${q(CHANGE_ENTRIES_TABLE)} ("subscriptionId" TEXT NOT NULL, "entityKey" TEXT NOT NULL, "changeType" TEXT NOT NULL, ` +
      `"changedAt" TEXT NOT NULL, "seq" INTEGER NOT NULL, PRIMARY KEY ("subscriptionId", "entityKey")) STRICT`,
    `CREATE TABLE IF NOT EXISTS ${q(CHANGE_NOTIFICATIONS_TABLE)} (\n` +
      `  "id" INTEGER PRIMARY KEY AUTOINCREMENT,\n` +
      `  "notificationUrl" TEXT NOT NULL,\n` +
      `  "subscriptionIds" TEXT NOT NULL CHECK (json_valid("subscriptionIds")),\n` +
      `  "webhookId" TEXT NOT NULL UNIQUE,\n` +
      `  "entries" INTEGER NOT NULL,\n` +
      `  "body" TEXT NOT NULL CHECK (json_valid("body")),\n` +
      `  "status" TEXT NOT NULL DEFAULT 'Pending' CHECK ("status" IN ('Pending', 'Sent', 'Failed')),\n` +
      `  "attempts" INTEGER NOT NULL DEFAULT 0,\n` +
      `  "nextAttemptAt" INTEGER NOT NULL,\n` +
      `  "firstAttemptAt" INTEGER,\n` +
      `  "lastStatusCode" INTEGER,\n` +
      `  "lastError" TEXT,\n` +
      `  "createdAt" TEXT NOT NULL,\n` +
      `  "completedAt" TEXT,\n` +
      `  "claimedBy" TEXT,\n` +
      `  "claimedUntil" INTEGER\n` +
      `) STRICT`,
    `CREATE INDEX IF NOT EXISTS ${q(`${CHANGE_NOTIFICATIONS_TABLE}_ix_url_status_id`)} ON ${q(CHANGE_NOTIFICATIONS_TABLE)}("notificationUrl", "status", "id")`,
    `CREATE INDEX IF NOT EXISTS ${q(`${CHANGE_NOTIFICATIONS_TABLE}_ix_status_id`)} ON ${q(CHANGE_NOTIFICATIONS_TABLE)}("status", "id")`,
    ...attemptsTableSql(CHANGE_ATTEMPTS_TABLE, CHANGE_NOTIFICATIONS_TABLE),
  ];
}

/** The three capture triggers of one set. */
export function captureTriggersSql(set: CapturedSet): string[] {
  const { type } = set;
  const table = q(type.table);
  const company = q(HIDDEN_COLUMNS.company);
  const subscribed = (row: 'NEW' | 'OLD'): string =>
    `EXISTS (SELECT 1 FROM ${q(set.subscriptions)} WHERE "companyId" = ${row}.${company} AND "resource" LIKE '${resourcePattern(type)}')`;
  const insert = (row: 'NEW' | 'OLD', changeType: string, changedAt: string): string =>
    `INSERT INTO ${q(CHANGES_TABLE)} ("companyId", "entitySet", "entityKey", "changeType", "changedAt", "capturedAt") ` +
    `VALUES (${row}.${company}, '${type.entitySet}', ${row}.${q(type.key.name)}, '${changeType}', ${changedAt}, ${NOW_MS});`;
  // An update merges into the entity's pending `updated` row when there is one (db/change-capture.ts pendingUpdate).
  const pending = pendingUpdate(q, `NEW.${company}`, type.entitySet, `NEW.${q(type.key.name)}`);
  const update =
    `UPDATE ${q(CHANGES_TABLE)} SET "changedAt" = NEW.${q(CHANGE_STAMP_PROPERTY)} WHERE ${pending}; ` +
    `INSERT INTO ${q(CHANGES_TABLE)} ("companyId", "entitySet", "entityKey", "changeType", "changedAt", "capturedAt") ` +
    `SELECT NEW.${company}, '${type.entitySet}', NEW.${q(type.key.name)}, 'updated', NEW.${q(CHANGE_STAMP_PROPERTY)}, ${NOW_MS} WHERE NOT EXISTS (SELECT 1 FROM ${q(CHANGES_TABLE)} WHERE ${pending});`;
  const name = (event: string): string => q(`${CAPTURE_TRIGGER_PREFIX}${type.table}_${event}`);
  const stamp = `NEW.${q(CHANGE_STAMP_PROPERTY)}`;
  const version = q(HIDDEN_COLUMNS.version);
  return [
    `CREATE TRIGGER ${name('insert')} AFTER INSERT ON ${table} WHEN ${subscribed('NEW')} BEGIN ${insert('NEW', 'created', stamp)} END`,
    // Only writes of the row (a new version): not the maintenance of counters or stored JSON.
    `CREATE TRIGGER ${name('update')} AFTER UPDATE ON ${table} WHEN NEW.${version} IS NOT OLD.${version} AND ${subscribed('NEW')} BEGIN ${update} END`,
    `CREATE TRIGGER ${name('delete')} AFTER DELETE ON ${table} WHEN ${subscribed('OLD')} BEGIN ${insert('OLD', 'deleted', NOW_ISO)} END`,
  ];
}

/**
 * Creates the change tables and the capture triggers of the model's subscribable sets, leaving the ones
 * already as wanted alone (a start that changes nothing writes no schema); drops stale ones.
 */
export function maintainSqliteChangeCapture(db: Database, model: EdmModel): void {
  for (const sql of changeTablesSql()) db.exec(sql);
  const existing = new Map(
    (db.raw.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND substr(name, 1, ?) = ?`).all(CAPTURE_TRIGGER_PREFIX.length, CAPTURE_TRIGGER_PREFIX) as { name: string; sql: string }[]).map((r) => [r.name, r.sql]),
  );
  const wanted = new Map<string, string>();
  for (const set of capturedSets(model)) for (const sql of captureTriggersSql(set)) wanted.set(/^CREATE TRIGGER "([^"]+)"/.exec(sql)?.[1] ?? sql, sql);
  for (const [name, sql] of existing) if (wanted.get(name) !== sql) db.exec(`DROP TRIGGER IF EXISTS ${q(name)}`);
  for (const [name, sql] of wanted) if (existing.get(name) !== sql) db.exec(sql);
}
