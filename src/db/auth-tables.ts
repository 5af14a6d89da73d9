/**
 * The framework's own tables for authentication, outside the OData model: users, their per-company
 * permission-set grants, and opaque API tokens (only a hash of each secret is stored).
 */
import type { Database } from './database.js';

/** Creates the auth tables if missing; `companyTable` is the model's company table. */
export function createAuthTables(db: Database, companyTable: string): void {
  const company = `"${companyTable.replace(/"/g, '""')}"`;
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
  `);
}
