/**
 * src/db/sqlite/sqlite-framework-tables.ts: a database made before notification claims gets their columns at start-up.
 */
import { openDatabase } from '../../../../src/db/sqlite/sqlite-database.js';
import { createDeliveryTables } from '../../../../src/db/sqlite/sqlite-framework-tables.js';

test('a notifications table without the claim columns gets them, and its rows stay unclaimed', () => {
  const db = openDatabase(':memory:');
  try {
    db.exec(
      `CREATE TABLE "_notifications" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "outboxId" INTEGER NOT NULL, "subscriptionId" TEXT NOT NULL, "webhookId" TEXT NOT NULL UNIQUE, "companyId" TEXT, "eventName" TEXT NOT NULL, "eventVersion" TEXT NOT NULL, "notificationUrl" TEXT NOT NULL, "body" TEXT NOT NULL, "status" TEXT NOT NULL DEFAULT 'Pending', "attempts" INTEGER NOT NULL DEFAULT 0, "nextAttemptAt" INTEGER NOT NULL, "lastStatusCode" INTEGER, "lastError" TEXT, "createdAt" TEXT NOT NULL, "completedAt" TEXT) STRICT`,
    );
    db.raw.prepare(`INSERT INTO "_notifications" ("outboxId", "subscriptionId", "webhookId", "eventName", "eventVersion", "notificationUrl", "body", "nextAttemptAt", "createdAt") VALUES (1, 's', 'w', 'e', '1.0', 'https://x', '{}', 0, 'now')`).run();
    createDeliveryTables(db);
    createDeliveryTables(db);
    expect(db.raw.prepare('SELECT "claimedBy", "claimedUntil" FROM "_notifications"').all()).toEqual([{ claimedBy: null, claimedUntil: null }]);
  } finally {
    db.close();
  }
});
