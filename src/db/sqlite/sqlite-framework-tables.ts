/**
 * The framework's hidden tables on SQLite (db/framework-tables.ts names them): users, their
 * per-company permission-set grants and API tokens (only a hash of each secret), with the access version
 * their triggers raise; the transactional outbox; `_notifications`, one row per outbox event and subscriber with its body
 * fixed at fan-out (so a retry sends the same bytes and the same webhook-id); and `_deliveryAttempts`,
 * one row per POST with its outcome, for operators (`ecn-odata deliveries`). Several instances share
 * the queue: `claimedBy` / `claimedUntil` (ms since the epoch) say which instance is sending a
 * notification and until when its lease runs (events/delivery-store.ts claim).
 */
import type { Database } from './sqlite-database.js';
import { quoteIdentifier } from '../../sql/quote-identifier.js';
import { sqliteDialect } from './sqlite-dialect.js';
import { ATTEMPTS_TABLE, NOTIFICATIONS_TABLE, OUTBOX_TABLE, USER_REQUESTS_TABLE } from '../framework-tables.js';

const q = (name: string): string => sqliteDialect.quoteIdentifier(name);

/** Columns added to `_notifications` after its first version: a notification's claim (see the file comment), its first attempt. */
const ADDED_COLUMNS = [
  { name: 'claimedBy', type: 'TEXT' },
  { name: 'claimedUntil', type: 'INTEGER' },
  { name: 'firstAttemptAt', type: 'INTEGER' },
] as const;

/** The statements that create a table of delivery attempts of the notifications in `notifications` when missing. */
export function attemptsTableSql(attempts: string, notifications: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${q(attempts)} (\n` +
      `  "id" INTEGER PRIMARY KEY AUTOINCREMENT,\n` +
      `  "notificationId" INTEGER NOT NULL REFERENCES ${q(notifications)}("id") ON DELETE CASCADE,\n` +
      `  "attempt" INTEGER NOT NULL,\n` +
      `  "attemptedAt" TEXT NOT NULL,\n` +
      `  "durationMs" INTEGER NOT NULL,\n` +
      `  "statusCode" INTEGER,\n` +
      `  "error" TEXT,\n` +
      `  "outcome" TEXT NOT NULL CHECK ("outcome" IN ('Sent', 'Retry', 'Failed'))\n` +
      `) STRICT`,
    `CREATE INDEX IF NOT EXISTS ${q(`${attempts}_ix_notification_attempt`)} ON ${q(attempts)}("notificationId", "attempt")`,
  ];
}

/** Creates the instances' fair-use reports table when missing (db/framework-tables.ts USER_REQUESTS_TABLE). */
export function createUserRequestsTable(db: Database): void {
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${q(USER_REQUESTS_TABLE)} (${q('instance')} TEXT NOT NULL, ${q('userId')} TEXT NOT NULL, ` +
      `${q('inWindow')} INTEGER NOT NULL, ${q('reportedAt')} INTEGER NOT NULL, PRIMARY KEY (${q('instance')}, ${q('userId')}))`,
  );
}

/**
 * Creates the outbox table when missing (start-up). The integer id is the delivery order; companyId has
 * no foreign key, so deleting a company does not drop events that still have to be delivered.
 */
export function createOutboxTable(db: Database): void {
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${q(OUTBOX_TABLE)} (\n` +
      `  ${q('id')} INTEGER PRIMARY KEY AUTOINCREMENT,\n` +
      `  ${q('companyId')} TEXT,\n` +
      `  ${q('eventName')} TEXT NOT NULL,\n` +
      `  ${q('eventVersion')} TEXT NOT NULL,\n` +
      `  ${q('payload')} TEXT NOT NULL CHECK (json_valid(${q('payload')})),\n` +
      `  ${q('createdAt')} TEXT NOT NULL,\n` +
      `  ${q('userId')} TEXT,\n` +
      `  ${q('status')} TEXT NOT NULL DEFAULT 'Pending' CHECK (${q('status')} IN ('Pending', 'Delivered', 'Failed'))\n` +
      `) STRICT`,
  );
  // Databases created before delivery existed lack the initiating user.
  const columns = db.raw.prepare(`SELECT name FROM pragma_table_info(?)`).all(OUTBOX_TABLE) as { name: string }[];
  if (!columns.some((c) => c.name === 'userId')) db.exec(`ALTER TABLE ${q(OUTBOX_TABLE)} ADD COLUMN ${q('userId')} TEXT`);
  db.exec(`CREATE INDEX IF NOT EXISTS ${q(`${OUTBOX_TABLE}_ix_status_id`)} ON ${q(OUTBOX_TABLE)}(${q('status')}, ${q('id')})`);
}

/** Creates the delivery tables when missing (start-up, and the deliveries command). */
export function createDeliveryTables(db: Database): void {
  const n = q(NOTIFICATIONS_TABLE);
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${n} (\n` +
      `  "id" INTEGER PRIMARY KEY AUTOINCREMENT,\n` +
      `  "outboxId" INTEGER NOT NULL REFERENCES ${q(OUTBOX_TABLE)}("id"),\n` +
      `  "subscriptionId" TEXT NOT NULL,\n` +
      `  "webhookId" TEXT NOT NULL UNIQUE,\n` +
      `  "companyId" TEXT,\n` +
      `  "eventName" TEXT NOT NULL,\n` +
      `  "eventVersion" TEXT NOT NULL,\n` +
      `  "notificationUrl" TEXT NOT NULL,\n` +
      `  "body" TEXT NOT NULL CHECK (json_valid("body")),\n` +
      `  "status" TEXT NOT NULL DEFAULT 'Pending' CHECK ("status" IN ('Pending', 'Sent', 'Failed')),\n` +
      `  "attempts" INTEGER NOT NULL DEFAULT 0,\n` +
      `  "nextAttemptAt" INTEGER NOT NULL,\n` +
      `  "lastStatusCode" INTEGER,\n` +
      `  "lastError" TEXT,\n` +
      `  "createdAt" TEXT NOT NULL,\n` +
      `  "completedAt" TEXT,\n` +
      `  "claimedBy" TEXT,\n` +
      `  "claimedUntil" INTEGER,\n` +
      `  "firstAttemptAt" INTEGER\n` +
      `) STRICT`,
  );
  // Databases of earlier versions: the columns are added (nullable: no claim, no attempt known).
  const have = new Set((db.raw.prepare(`SELECT name FROM pragma_table_info(?)`).all(NOTIFICATIONS_TABLE) as { name: string }[]).map((c) => c.name));
  for (const column of ADDED_COLUMNS) if (!have.has(column.name)) db.exec(`ALTER TABLE ${n} ADD COLUMN ${q(column.name)} ${column.type}`);
  // One notification per event and subscriber, whatever happens to the fan-out transaction.
  db.exec(`CREATE UNIQUE INDEX IF NOT EXISTS ${q(`${NOTIFICATIONS_TABLE}_u_outbox_subscription`)} ON ${n}("outboxId", "subscriptionId")`);
  db.exec(`CREATE INDEX IF NOT EXISTS ${q(`${NOTIFICATIONS_TABLE}_ix_subscription_status_id`)} ON ${n}("subscriptionId", "status", "id")`);
  db.exec(`CREATE INDEX IF NOT EXISTS ${q(`${NOTIFICATIONS_TABLE}_ix_status_id`)} ON ${n}("status", "id")`);
  for (const sql of attemptsTableSql(ATTEMPTS_TABLE, NOTIFICATIONS_TABLE)) db.exec(sql);
}

/** Creates the auth tables if missing; `companyTable` is the model's company table. */
export function createAuthTables(db: Database, companyTable: string): void {
  const company = quoteIdentifier(companyTable);
  db.exec(`
    CREATE TABLE IF NOT EXISTS "_users" (
      "userId" TEXT NOT NULL PRIMARY KEY,
      "email" TEXT,
      "defaultCompanyId" TEXT REFERENCES ${company}("id") ON DELETE SET NULL,
      "createdAt" TEXT NOT NULL
    ) STRICT;
    CREATE TABLE IF NOT EXISTS "_grants" (
      "userId" TEXT NOT NULL REFERENCES "_users"("userId") ON DELETE CASCADE,
      "companyId" TEXT NOT NULL REFERENCES ${company}("id") ON DELETE CASCADE,
      "permissionSet" TEXT NOT NULL,
      PRIMARY KEY ("userId", "companyId", "permissionSet")
    ) STRICT;
    CREATE TABLE IF NOT EXISTS "_tokens" (
      "tokenId" TEXT NOT NULL PRIMARY KEY,
      "userId" TEXT NOT NULL REFERENCES "_users"("userId") ON DELETE CASCADE,
      "secretHash" BLOB NOT NULL,
      "createdAt" TEXT NOT NULL,
      "expiresAt" TEXT,
      "revokedAt" TEXT
    ) STRICT;
    CREATE INDEX IF NOT EXISTS "_tokens_ix_userId" ON "_tokens"("userId");
    CREATE TABLE IF NOT EXISTS "_accessVersion" ("id" INTEGER NOT NULL PRIMARY KEY CHECK ("id" = 1), "version" INTEGER NOT NULL) STRICT;
    INSERT OR IGNORE INTO "_accessVersion" ("id", "version") VALUES (1, 0);
  `);
  for (const [name, table] of [['users', '"_users"'], ['grants', '"_grants"'], ['tokens', '"_tokens"'], ['companies', company]] as const) {
    for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
      db.exec(
        `CREATE TRIGGER IF NOT EXISTS "_access_${name}_${event.toLowerCase()}" AFTER ${event} ON ${table} ` +
          'BEGIN UPDATE "_accessVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;',
      );
    }
  }
}
