/**
 * The number of rows of each company's whole set, kept by PostgreSQL for `$count` (plan-read-request.ts reads
 * it through `EngineCapabilities.keptSetCount`). PostgreSQL counts a set by visiting every row (10,000 ECNs:
 * about 480 µs of the server, growing with the set), where SQLite counts its b-tree's cells.
 *
 * Every company-scoped table has statement triggers: AFTER INSERT and AFTER DELETE (with their
 * transition tables) add one row per statement and company to `_setCounts` with the change, +n or -n;
 * AFTER TRUNCATE removes the table's rows; a row moved to another company adds -1 and +1. A set's
 * count is the sum of its rows, read in the statement of the page, so in its snapshot. Writers only
 * ever add rows: none waits for another's counter row, and a bulk import in one transaction piles up
 * no row versions of one counter (as a counter row updated by each insert would; see the README).
 * compactSetCounts folds each set's rows into one, in the background (postgres-engine.ts runs it a
 * second after its writes).
 *
 * The migration creates the triggers and counts every table again in its transaction (postgres-
 * migrate.ts): CREATE TRIGGER locks the table against writers until it commits, so the count and the
 * rows agree. A row written with the triggers off (session_replication_role = replica) is not counted
 * until then; `setCountsOff` finds such sets (the tests run it after every PostgreSQL suite).
 */
import { HIDDEN_COLUMNS, type EdmModel, type EntityType } from '../../edm/model.js';
import type { Statements } from '../engine.js';
import type { CompiledQuery } from '../../sql/compile.js';
import { objectName, q } from './postgres-ddl.js';
import type { PostgresDatabase, PostgresSession } from './postgres-database.js';
import { SET_COUNTS_TABLE } from './postgres-dialect.js';
import { MIGRATION_LOCK } from './postgres-migrate.js';

/** The trigger function every table shares (plpgsql compiles it per table). */
const FUNCTION = objectName('_setcount');

/** The tables whose sets are counted: those of company-scoped types. */
export function countedTypes(model: EdmModel): EntityType[] {
  return model.entityTypes.filter((t) => t.scope === 'company');
}

/** The table and the shared trigger function. */
export function setCountsSql(): string[] {
  const t = q(SET_COUNTS_TABLE);
  const company = q(HIDDEN_COLUMNS.company);
  const add = (rows: string, sign: string): string =>
    `INSERT INTO ${t} ("table", "companyId", "n") SELECT TG_TABLE_NAME, ${company}, ${sign}count(*) FROM ${q(rows)} GROUP BY ${company};`;
  return [
    `CREATE TABLE IF NOT EXISTS ${t} ("table" text COLLATE "C" NOT NULL, "companyId" text COLLATE "C" NOT NULL, "n" bigint NOT NULL)`,
    `CREATE INDEX IF NOT EXISTS ${q(objectName(`${SET_COUNTS_TABLE}_set`))} ON ${t} ("table", "companyId")`,
    // The owner's rights and the migration's schema, whoever writes (as postgres-entity-json.ts's).
    `CREATE OR REPLACE FUNCTION ${q(FUNCTION)}() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$\nBEGIN\n` +
      `  IF TG_OP = 'INSERT' THEN\n    ${add('new_rows', '')}\n` +
      `  ELSIF TG_OP = 'DELETE' THEN\n    ${add('old_rows', '-')}\n` +
      `  ELSIF TG_OP = 'UPDATE' THEN\n    INSERT INTO ${t} ("table", "companyId", "n") VALUES (TG_TABLE_NAME, OLD.${company}, -1), (TG_TABLE_NAME, NEW.${company}, 1);\n` +
      `  ELSE\n    DELETE FROM ${t} WHERE "table" = TG_TABLE_NAME;\n  END IF;\n  RETURN NULL;\nEND $$`,
  ];
}

/**
 * A table's four triggers: INSERT and DELETE per statement with their transition tables (which allow
 * one event per trigger and no column list), TRUNCATE, and a row moved to another company (by SQL
 * outside the service, which never sets the company) per row, only when the company changes.
 */
export function setCountTriggersSql(type: EntityType): string[] {
  const table = q(type.table);
  const company = q(HIDDEN_COLUMNS.company);
  const fn = q(FUNCTION);
  return [
    `CREATE OR REPLACE TRIGGER "_setcount_insert" AFTER INSERT ON ${table} REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
    `CREATE OR REPLACE TRIGGER "_setcount_delete" AFTER DELETE ON ${table} REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
    `CREATE OR REPLACE TRIGGER "_setcount_truncate" AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
    `CREATE OR REPLACE TRIGGER "_setcount_move" AFTER UPDATE OF ${company} ON ${table} FOR EACH ROW WHEN (OLD.${company} IS DISTINCT FROM NEW.${company}) EXECUTE FUNCTION ${fn}()`,
  ];
}

/** The statements that count a table's sets again from its rows (also run by the bench after a copy made with the triggers off). */
export function recountSql(type: EntityType): CompiledQuery[] {
  const company = q(HIDDEN_COLUMNS.company);
  return [
    { sql: `DELETE FROM ${q(SET_COUNTS_TABLE)} WHERE "table" = $1`, params: [type.table] },
    { sql: `INSERT INTO ${q(SET_COUNTS_TABLE)} ("table", "companyId", "n") SELECT $1, ${company}, count(*) FROM ${q(type.table)} GROUP BY ${company}`, params: [type.table] },
  ];
}

/**
 * In the migration's transaction, after the tables exist: the function, each counted table's
 * triggers, and its counts from its rows (the triggers' lock keeps writers out until the commit).
 * Counts of tables the model no longer counts are dropped.
 */
export async function maintainSetCounts(s: PostgresSession, model: EdmModel): Promise<void> {
  for (const sql of setCountsSql()) await s.exec(sql);
  const types = countedTypes(model);
  for (const type of types) {
    for (const sql of setCountTriggersSql(type)) await s.exec(sql);
    for (const statement of recountSql(type)) await s.run(statement);
  }
  const kept = types.map((_, i) => `$${i + 1}`).join(', ');
  await s.run({ sql: `DELETE FROM ${q(SET_COUNTS_TABLE)}${types.length === 0 ? '' : ` WHERE "table" NOT IN (${kept})`}`, params: types.map((t) => t.table) });
}

/** The advisory lock of an instance compacting: the migration lock's key plus one. */
const compactionLock = (): bigint => MIGRATION_LOCK + 1n;

/**
 * Folds the rows of each set that has more than one into one (dropping a zero): one statement, in a
 * transaction that holds the migration lock shared (a migration counting a table again would
 * otherwise keep a sum folded concurrently beside its new count), skipped when another instance
 * compacts or a migration runs. Concurrent writers' rows are theirs until they commit: the DELETE
 * sees committed rows only, and each row is folded by one statement (its row lock). Returns the rows
 * folded.
 */
export async function compactSetCounts(db: PostgresDatabase): Promise<number> {
  const t = q(SET_COUNTS_TABLE);
  return db.transaction(async (s) => {
    const locks = await s.get({ sql: 'SELECT pg_try_advisory_xact_lock($1::bigint) AND pg_try_advisory_xact_lock_shared($2::bigint) AS "ok"', params: [compactionLock(), MIGRATION_LOCK] });
    if (locks?.['ok'] !== 1 && locks?.['ok'] !== true) return 0;
    const folded = await s.get({
      sql:
        `WITH "many" AS (SELECT "table", "companyId" FROM ${t} GROUP BY "table", "companyId" HAVING count(*) > 1), ` +
        `"gone" AS (DELETE FROM ${t} AS "c" USING "many" AS "m" WHERE "c"."table" = "m"."table" AND "c"."companyId" = "m"."companyId" RETURNING "c"."table", "c"."companyId", "c"."n"), ` +
        `"kept" AS (INSERT INTO ${t} ("table", "companyId", "n") SELECT "table", "companyId", sum("n") FROM "gone" GROUP BY "table", "companyId" HAVING sum("n") <> 0) ` +
        `SELECT (SELECT count(*) FROM "gone") AS "n"`,
      params: [],
    });
    return Number(folded?.['n'] ?? 0);
  });
}

/** Sets whose kept count is not the number of their rows, as `table/company: kept != rows` (none: []). */
export async function setCountsOff(s: Pick<Statements, 'all'>, model: EdmModel): Promise<string[]> {
  const off: string[] = [];
  const company = q(HIDDEN_COLUMNS.company);
  for (const type of countedTypes(model)) {
    const rows = await s.all({
      sql:
        `SELECT coalesce("r"."companyId", "k"."companyId") AS "companyId", coalesce("r"."n", 0) AS "rows", coalesce("k"."n", 0) AS "kept" ` +
        `FROM (SELECT ${company} AS "companyId", count(*) AS "n" FROM ${q(type.table)} GROUP BY ${company}) AS "r" ` +
        `FULL JOIN (SELECT "companyId", sum("n") AS "n" FROM ${q(SET_COUNTS_TABLE)} WHERE "table" = $1 GROUP BY "companyId") AS "k" ON "k"."companyId" = "r"."companyId" ` +
        `WHERE coalesce("r"."n", 0) <> coalesce("k"."n", 0)`,
      params: [type.table],
    });
    for (const r of rows) off.push(`${type.table}/${String(r['companyId'])}: kept ${String(r['kept'])} != rows ${String(r['rows'])}`);
  }
  return off;
}
