/**
 * The framework's own tables for authentication, outside the OData model: users, their per-company
 * permission-set grants, and opaque API tokens (only a hash of each secret is stored); and the access
 * version, which triggers raise on every change to those tables or to the companies, so that the
 * in-memory access cache (auth/access-cache.ts) knows when to forget, whichever connection wrote.
 */
import type { Database } from './database.js';
import { quoteIdentifier } from '../sql/quote-identifier.js';

/** Reads the access version (one row, "version"), on either engine. */
export const ACCESS_VERSION_SQL = 'SELECT "version" FROM "_accessVersion" WHERE "id" = 1';

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
