/**
 * Users and their grants (per company, per permission set), managed from the command line and read by
 * the authenticator to build a request's principal.
 */
import type { Database } from '../db/database.js';
import type { EdmModel } from '../edm/model.js';
import type { Principal } from '../core/request.js';
import { GUID } from '../edm/values.js';
import { knownPermissionSets } from './permission-sets.js';

/** A user as stored. */
export interface UserRecord {
  readonly userId: string;
  readonly email: string | null;
  readonly defaultCompanyId: string | null;
}

/** A problem with a user-management command (shown as one line). */
export class UserStoreError extends Error {}

/** User ids are case-insensitive and kept upper-case, as in Business Central. */
export function normaliseUserId(userId: string): string {
  const id = userId.trim().toUpperCase();
  if (!/^[A-Z0-9][A-Z0-9._@-]{0,49}$/.test(id)) throw new UserStoreError(`'${userId}' is not a valid user id (letters, digits, . _ @ -, at most 50).`);
  return id;
}

/** Reads and writes users and grants. */
export class UserStore {
  constructor(
    private readonly db: Database,
    private readonly model: EdmModel,
  ) {}

  /** The id of a company given by id or name. */
  companyId(idOrName: string): string {
    const t = `"${this.model.company.table}"`;
    const row = (GUID.test(idOrName)
      ? this.db.raw.prepare(`SELECT "id" FROM ${t} WHERE "id" = ?`).get(idOrName.toLowerCase())
      : this.db.raw.prepare(`SELECT "id" FROM ${t} WHERE "name" = ?`).get(idOrName)) as { id: string } | undefined;
    if (row === undefined) throw new UserStoreError(`There is no company '${idOrName}'.`);
    return row.id;
  }

  /** Adds a user (or updates its e-mail/default company when it exists). */
  addUser(userId: string, email?: string, defaultCompany?: string): UserRecord {
    const id = normaliseUserId(userId);
    const companyId = defaultCompany === undefined ? null : this.companyId(defaultCompany);
    this.db.raw
      .prepare(
        `INSERT INTO "_users" ("userId", "email", "defaultCompanyId", "createdAt") VALUES (?, ?, ?, ?)
         ON CONFLICT("userId") DO UPDATE SET "email" = coalesce(excluded."email", "email"), "defaultCompanyId" = coalesce(excluded."defaultCompanyId", "defaultCompanyId")`,
      )
      .run(id, email ?? null, companyId, new Date().toISOString());
    return this.user(id) as UserRecord;
  }

  /** A user, or undefined. */
  user(userId: string): UserRecord | undefined {
    return this.db.get({ sql: `SELECT "userId", "email", "defaultCompanyId" FROM "_users" WHERE "userId" = ?`, params: [userId.trim().toUpperCase()] }) as UserRecord | undefined;
  }

  /** A user found by id or e-mail (JWT claims may carry either). */
  findByIdOrEmail(value: string): UserRecord | undefined {
    return (
      this.user(value) ??
      (this.db.get({ sql: `SELECT "userId", "email", "defaultCompanyId" FROM "_users" WHERE lower("email") = lower(?)`, params: [value] }) as UserRecord | undefined)
    );
  }

  /** All users. */
  users(): UserRecord[] {
    return this.db.raw.prepare(`SELECT "userId", "email", "defaultCompanyId" FROM "_users" ORDER BY "userId"`).all() as UserRecord[];
  }

  /** Grants permission sets to a user in a company. */
  grant(userId: string, company: string, sets: readonly string[]): void {
    const user = this.user(userId);
    if (user === undefined) throw new UserStoreError(`There is no user '${userId}'; add it with: ecn-odata users add --user ${userId}`);
    const known = knownPermissionSets(this.model);
    for (const s of sets) if (!known.includes(s)) throw new UserStoreError(`Unknown permission set '${s}'. Known sets: ${known.join(', ')}.`);
    const companyId = this.companyId(company);
    const insert = this.db.raw.prepare(`INSERT OR IGNORE INTO "_grants" ("userId", "companyId", "permissionSet") VALUES (?, ?, ?)`);
    this.db.raw.transaction(() => {
      for (const s of sets) insert.run(user.userId, companyId, s);
    })();
  }

  /** Removes grants (all sets of the company when `sets` is empty). */
  revoke(userId: string, company: string, sets: readonly string[]): number {
    const companyId = this.companyId(company);
    const id = userId.trim().toUpperCase();
    if (sets.length === 0) return this.db.raw.prepare(`DELETE FROM "_grants" WHERE "userId" = ? AND "companyId" = ?`).run(id, companyId).changes;
    let n = 0;
    for (const s of sets) n += this.db.raw.prepare(`DELETE FROM "_grants" WHERE "userId" = ? AND "companyId" = ? AND "permissionSet" = ?`).run(id, companyId, s).changes;
    return n;
  }

  /** The grants of a user: company id → permission sets. */
  grants(userId: string): Map<string, Set<string>> {
    const rows = this.db.all({ sql: `SELECT "companyId", "permissionSet" FROM "_grants" WHERE "userId" = ?`, params: [userId] }) as { companyId: string; permissionSet: string }[];
    const out = new Map<string, Set<string>>();
    for (const r of rows) {
      let s = out.get(r.companyId);
      if (s === undefined) out.set(r.companyId, (s = new Set()));
      s.add(r.permissionSet);
    }
    return out;
  }

  /** The principal of a user: the companies it has grants in and the sets per company. */
  principal(user: UserRecord): Principal {
    const grants = this.grants(user.userId);
    return {
      userId: user.userId,
      companies: new Set(grants.keys()),
      grants,
      ...(user.defaultCompanyId !== null ? { defaultCompany: user.defaultCompanyId } : {}),
    };
  }
}
