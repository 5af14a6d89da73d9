/**
 * The instances' shared view of each user's fair-use window (core/fair-use.ts): each instance rewrites
 * its own rows of `_userRequests` (one per user with requests in its window) and reads the sum of the
 * others' recent rows, in one short transaction. A row older than a few report periods belongs to an
 * instance that stopped or died and no longer counts; older ones still are deleted.
 */
import type { Engine } from '../db/engine.js';
import { USER_REQUESTS_TABLE } from '../db/framework-tables.js';
import { ident, sqlText } from '../sql/sql-text.js';

/** A report older than this is left out of the others' sum (its instance stopped reporting). */
export const REPORT_FRESH_MS = 5_000;
/** A report older than this is deleted. */
const REPORT_KEPT_MS = 60_000;

/**
 * Replaces this instance's report with `counts` (user id → requests in its window) and answers the
 * other instances' fresh reports summed per user.
 */
export async function exchangeUserRequestCounts(
  engine: Pick<Engine, 'transaction' | 'dialect'>,
  instance: string,
  counts: ReadonlyMap<string, number>,
  nowMs: number,
): Promise<Map<string, number>> {
  const sql = sqlText(engine.dialect);
  const table = ident(USER_REQUESTS_TABLE);
  const rows = await engine.transaction(async (tx) => {
    await tx.run(sql`DELETE FROM ${table} WHERE "instance" = ${instance} OR "reportedAt" < ${nowMs - REPORT_KEPT_MS}`);
    for (const [userId, inWindow] of counts) {
      await tx.run(sql`INSERT INTO ${table} ("instance", "userId", "inWindow", "reportedAt") VALUES (${instance}, ${userId}, ${inWindow}, ${nowMs})`);
    }
    return tx.all(sql`SELECT "userId", SUM("inWindow") AS "n" FROM ${table} WHERE "instance" <> ${instance} AND "reportedAt" >= ${nowMs - REPORT_FRESH_MS} GROUP BY "userId"`);
  });
  return new Map(rows.map((r) => [String(r['userId']), Number(r['n'])]));
}

/** The other instances' fresh reports summed per user, read without writing (an instance with nothing to report). */
export async function othersUserRequestCounts(engine: Pick<Engine, 'db' | 'dialect'>, instance: string, nowMs: number): Promise<Map<string, number>> {
  const sql = sqlText(engine.dialect);
  const rows = await engine.db.all(
    sql`SELECT "userId", SUM("inWindow") AS "n" FROM ${ident(USER_REQUESTS_TABLE)} WHERE "instance" <> ${instance} AND "reportedAt" >= ${nowMs - REPORT_FRESH_MS} GROUP BY "userId"`,
  );
  return new Map(rows.map((r) => [String(r['userId']), Number(r['n'])]));
}

/** Deletes this instance's report (a clean stop: its counts leave the others' sums at once). */
export async function withdrawUserRequestCounts(engine: Pick<Engine, 'transaction' | 'dialect'>, instance: string): Promise<void> {
  const sql = sqlText(engine.dialect);
  await engine.transaction(async (tx) => {
    await tx.run(sql`DELETE FROM ${ident(USER_REQUESTS_TABLE)} WHERE "instance" = ${instance}`);
  });
}
