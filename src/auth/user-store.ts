/**
 * Users and their grants (per company, per permission set), managed from the command line and read by
 * the authenticator to build a request's principal.
 */
import type { Engine } from '../db/engine.js';
import { ident, sqlText, type SqlTag } from '../sql/sql-text.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import type { EdmModel } from '../edm/model.js';
import type { Principal } from './principal.js';
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
  private readonly sql: SqlTag;

  constructor(
    private readonly engine: Pick<Engine, 'db' | 'dialect' | 'transaction'>,
    private readonly model: EdmModel,
  ) {
    this.sql = sqlText(engine.dialect);
  }

  /** The id of a company given by id or name. */
  async companyId(idOrName: string): Promise<string> {
    const t = ident(this.model.company.table);
    const row = await this.engine.db.get(
      GUID.test(idOrName) ? this.sql`SELECT "id" FROM ${t} WHERE "id" = ${idOrName.toLowerCase()}` : this.sql`SELECT "id" FROM ${t} WHERE "name" = ${idOrName}`,
    );
    if (row === undefined) throw new UserStoreError(`There is no company '${idOrName}'.`);
    return row['id'] as string;
  }

  /** Adds a user (or updates its e-mail/default company when it exists). */
  async addUser(userId: string, email?: string, defaultCompany?: string): Promise<UserRecord> {
    const id = normaliseUserId(userId);
    const companyId = defaultCompany === undefined ? null : await this.companyId(defaultCompany);
    await this.engine.db.run(
      this.sql`INSERT INTO "_users" ("userId", "email", "defaultCompanyId", "createdAt") VALUES (${id}, ${email ?? null}, ${companyId}, ${new Date().toISOString()})
         ON CONFLICT ("userId") DO UPDATE SET "email" = coalesce(excluded."email", "_users"."email"), "defaultCompanyId" = coalesce(excluded."defaultCompanyId", "_users"."defaultCompanyId")`,
    );
    return (await this.user(id)) as UserRecord;
  }

  /** A user, or undefined. */
  user(userId: string): MaybePromise<UserRecord | undefined> {
    return this.engine.db.get(this.sql`SELECT "userId", "email", "defaultCompanyId" FROM "_users" WHERE "userId" = ${userId.trim().toUpperCase()}`) as MaybePromise<UserRecord | undefined>;
  }

  /** A user found by id or e-mail (JWT claims may carry either). */
  findByIdOrEmail(value: string): MaybePromise<UserRecord | undefined> {
    return andThen(
      this.user(value),
      (byId) => byId ?? (this.engine.db.get(this.sql`SELECT "userId", "email", "defaultCompanyId" FROM "_users" WHERE lower("email") = lower(${value})`) as MaybePromise<UserRecord | undefined>),
    );
  }

  /** All users. */
  async users(): Promise<UserRecord[]> {
    return (await this.engine.db.all(this.sql`SELECT "userId", "email", "defaultCompanyId" FROM "_users" ORDER BY "userId"`)) as unknown as UserRecord[];
  }

  /** Grants permission sets to a user in a company. */
  async grant(userId: string, company: string, sets: readonly string[]): Promise<void> {
    const user = await this.user(userId);
    if (user === undefined) throw new UserStoreError(`There is no user '${userId}'; add it with: ecn-odata users add --user ${userId}`);
    const known = knownPermissionSets(this.model);
    for (const s of sets) if (!known.includes(s)) throw new UserStoreError(`Unknown permission set '${s}'. Known sets: ${known.join(', ')}.`);
    const companyId = await this.companyId(company);
    await this.engine.transaction(async (tx) => {
      for (const s of sets) await tx.run(this.sql`INSERT INTO "_grants" ("userId", "companyId", "permissionSet") VALUES (${user.userId}, ${companyId}, ${s}) ON CONFLICT DO NOTHING`);
    });
  }

  /** Removes grants (all sets of the company when `sets` is empty). */
  async revoke(userId: string, company: string, sets: readonly string[]): Promise<number> {
    const companyId = await this.companyId(company);
    const id = userId.trim().toUpperCase();
    if (sets.length === 0) return this.engine.db.run(this.sql`DELETE FROM "_grants" WHERE "userId" = ${id} AND "companyId" = ${companyId}`);
    let n = 0;
    for (const s of sets) n += await this.engine.db.run(this.sql`DELETE FROM "_grants" WHERE "userId" = ${id} AND "companyId" = ${companyId} AND "permissionSet" = ${s}`);
    return n;
  }

  /** The grants of a user: company id → permission sets. */
  grants(userId: string): MaybePromise<Map<string, Set<string>>> {
    return andThen(this.engine.db.all(this.sql`SELECT "companyId", "permissionSet" FROM "_grants" WHERE "userId" = ${userId}`), (rows) => {
      const out = new Map<string, Set<string>>();
      for (const r of rows as { companyId: string; permissionSet: string }[]) {
        let s = out.get(r.companyId);
        if (s === undefined) out.set(r.companyId, (s = new Set()));
        s.add(r.permissionSet);
      }
      return out;
    });
  }

  /** The principal of a user: the companies it has grants in and the sets per company. */
  principal(user: UserRecord): MaybePromise<Principal> {
    return andThen(this.grants(user.userId), (grants) => ({
      userId: user.userId,
      companies: new Set(grants.keys()),
      grants,
      ...(user.defaultCompanyId !== null ? { defaultCompany: user.defaultCompanyId } : {}),
    }));
  }
}
