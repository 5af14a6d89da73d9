/**
 * Each row's entity JSON kept in its hidden column `_entityJson` on PostgreSQL (EngineCapabilities.storedEntityJson),
 * so a read copies one text per row instead of building it: the server's JSON writer costs about 10 µs
 * a row (row_to_json of some twenty members and a lookup), most of what a page of entities costs it,
 * and the server is what several instances share. The JSON is the object query/plan-stored-json.ts
 * defines (odata.metadata=minimal, every property), kept by triggers in the database, so every
 * writer's change counts, not only the service's:
 * - a BEFORE INSERT OR UPDATE trigger on the type's table builds it when a column it reads changed
 *   (a related-row counter only when it crosses zero), or when it is NULL;
 * - an AFTER trigger on each table a lookup reads sets it to NULL (so the first trigger builds it
 *   again) on the rows that reach an inserted, deleted or changed row, before and after the change.
 * Reads take the stored text and build the object only for a row that has none (COALESCE: a row
 * written with the triggers off). The ETag is part of it; a lookup's change does not change the row's
 * ETag, as before. Definitions are kept in `_entityJsonDefs`, so a changed model recreates the
 * triggers at start-up and builds the JSON of the type's rows again (in the migration's transaction).
 */
import { createHash } from 'node:crypto';
import type { EdmModel, EntityType } from '../../edm/model.js';
import { HIDDEN_COLUMNS } from '../../edm/model.js';
import { keepsEntityJson } from '../../edm/keeps-entity-json.js';
import { reachesRow, storedJsonDependencies, storedJsonInputs, storedJsonSelect, type StoredJsonDependency } from '../../query/plan-stored-json.js';
import { col } from '../../sql/build.js';
import { compile, type CompiledQuery } from '../../sql/compile.js';
import type { SqlExpr, StatementNode } from '../../sql/nodes.js';
import { objectName, q } from './postgres-ddl.js';
import { postgresDialect } from './postgres-dialect.js';
import { postgresFunctionsSql } from './postgres-functions.js';
import type { PostgresSession } from './postgres-database.js';
import type { Statements } from '../engine.js';

/** A value as a SQL literal: an escape string (E'...'), which reads alike whatever standard_conforming_strings says. */
export function literal(value: unknown): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return `E'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  throw new Error(`a ${typeof value} value in the definition of a stored entity JSON`);
}

/**
 * The text of a compiled statement with its parameters written as literals: a trigger's body cannot
 * bind them. The values are the model's (member names, a lookup's fallback), never a request's.
 */
function inlined(c: CompiledQuery): string {
  return c.sql.replace(/\$(\d+)/g, (_, n: string) => literal(c.params[Number(n) - 1]));
}

const statementText = (node: StatementNode): string => inlined(compile(node, postgresDialect));

/** Expressions as the comma-separated text of a ROW(...). */
function rowText(exprs: readonly SqlExpr[]): string {
  return statementText({ kind: 'select', columns: exprs.map((expr) => ({ expr })), joins: [], orderBy: [] }).replace(/^SELECT /, '');
}

/** `$json$ ... $json$`, with a tag the body does not contain. */
function dollarQuoted(body: string): string {
  let tag = 'json';
  while (body.includes(`$${tag}$`)) tag += '_';
  return `$${tag}$\n${body}\n$${tag}$`;
}

/**
 * What every trigger function runs with, whoever writes: the schema the migration made the tables in,
 * the owner's rights (a role that may write a looked-up table but not the rows that read it still has
 * their JSON built again), and the shortest exact spelling of doubles (a session with
 * extra_float_digits = 0 would store rounded numbers).
 */
const FUNCTION_SETTINGS = 'SECURITY DEFINER SET search_path FROM CURRENT SET extra_float_digits = 1';

/** The name of a type's own trigger function (and trigger). */
const rowFunction = (type: EntityType): string => objectName(`_jsonrow_${type.table}`);

/** The statements that create the trigger building a type's JSON. */
export function entityJsonTriggerSql(type: EntityType): string[] {
  const fn = rowFunction(type);
  const json = q(HIDDEN_COLUMNS.entityJson);
  // The trigger's new row under its column names: `(SELECT "new".*) AS t0`.
  const build = statementText(storedJsonSelect(type, postgresDialect, (alias) => ({ kind: 'derived', alias, query: { kind: 'select', columns: [{ expr: { kind: 'star', table: 'new' } }], joins: [], orderBy: [] } })));
  const body = [
    'BEGIN',
    `  IF TG_OP = 'INSERT' OR NEW.${json} IS NULL OR ROW(${rowText(storedJsonInputs(type, 'old'))}) IS DISTINCT FROM ROW(${rowText(storedJsonInputs(type, 'new'))}) THEN`,
    `    NEW.${json} := (${build});`,
    '  END IF;',
    '  RETURN NEW;',
    'END',
  ].join('\n');
  return [
    `CREATE OR REPLACE FUNCTION ${q(fn)}() RETURNS trigger LANGUAGE plpgsql ${FUNCTION_SETTINGS} AS ${dollarQuoted(body)}`,
    `CREATE TRIGGER ${q(fn)} BEFORE INSERT OR UPDATE ON ${q(type.table)} FOR EACH ROW EXECUTE FUNCTION ${q(fn)}()`,
  ];
}

/** The name of a dependency's function (and, suffixed, of its triggers): another prefix than rowFunction's, so the two never meet. */
function dependencyName(dep: StoredJsonDependency): string {
  return `_jsonlookup_${dep.type.table}_${dep.navigations.map((n) => n.name).join('_')}`;
}

/** `UPDATE <type> SET _entityJson = NULL WHERE <reaches the row>` for the trigger's row `old` or `new`. */
function clearReaching(dep: StoredJsonDependency, row: 'old' | 'new'): string {
  return statementText({ kind: 'update', table: dep.type.table, set: [{ column: HIDDEN_COLUMNS.entityJson, value: { kind: 'constant', value: null } }], where: reachesRow(dep, row) });
}

/** The statements that create the triggers of one dependency, on the table its rows are in. */
export function dependencyTriggerSql(dep: StoredJsonDependency): string[] {
  const name = dependencyName(dep);
  const fn = objectName(name);
  const row = (alias: string, columns: readonly string[]): string => `ROW(${rowText(columns.map((c) => col(alias, c)))})`;
  const body = [
    'BEGIN',
    // The rows that reached the row before the change: only when what decides it changed.
    `  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND ${row('old', dep.keys)} IS DISTINCT FROM ${row('new', dep.keys)}) THEN`,
    `    ${clearReaching(dep, 'old')};`,
    '  END IF;',
    `  IF TG_OP <> 'DELETE' THEN`,
    `    ${clearReaching(dep, 'new')};`,
    '  END IF;',
    '  RETURN NULL;',
    'END',
  ].join('\n');
  const table = q(dep.table);
  return [
    `CREATE OR REPLACE FUNCTION ${q(fn)}() RETURNS trigger LANGUAGE plpgsql ${FUNCTION_SETTINGS} AS ${dollarQuoted(body)}`,
    `CREATE TRIGGER ${q(objectName(`${name}_rows`))} AFTER INSERT OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${q(fn)}()`,
    `CREATE TRIGGER ${q(objectName(`${name}_moves`))} AFTER UPDATE ON ${table} FOR EACH ROW WHEN (${row('old', dep.columns)} IS DISTINCT FROM ${row('new', dep.columns)}) EXECUTE FUNCTION ${q(fn)}()`,
  ];
}

const REGISTRY = '_entityJsonDefs';

/** What the registry holds per definition: its statements, and the function that DROP ... CASCADE removes with its triggers. */
interface Definition {
  readonly key: string;
  /** The table whose rows' JSON must be built again when it changes (a type's own definition). */
  readonly rebuild?: string;
  readonly fn: string;
  readonly statements: readonly string[];
  /** What else the JSON it builds depends on (the framework's SQL functions, by hash): a change of it counts as a change of the definition. */
  readonly dependsOn?: string;
}

/** A definition as it is compared and kept: its statements, then what it depends on as an SQL comment. */
function definitionLines(d: Definition): string[] {
  return d.dependsOn === undefined ? [...d.statements] : [...d.statements, `-- ${d.dependsOn}`];
}

/** Every statement of the stored JSON's triggers, for the schema stamp (postgres-schema-stamp.ts). */
export function entityJsonTriggersSql(model: EdmModel): string[] {
  return definitions(model).flatMap(definitionLines);
}

function definitions(model: EdmModel): Definition[] {
  const defs: Definition[] = [];
  // The JSON is also what the framework's functions (odata_etag, odata_json_number) write: a version
  // of them that writes otherwise has every row's JSON built again.
  const functions = `functions ${createHash('sha256').update(postgresFunctionsSql(undefined)).digest('hex')}`;
  for (const type of model.entityTypes.filter(keepsEntityJson)) {
    defs.push({ key: `type/${type.table}`, rebuild: type.table, fn: rowFunction(type), statements: entityJsonTriggerSql(type), dependsOn: functions });
    for (const dep of storedJsonDependencies(type)) {
      defs.push({ key: `lookup/${dependencyName(dep)}`, fn: objectName(dependencyName(dep)), statements: dependencyTriggerSql(dep) });
    }
  }
  return defs;
}

/**
 * Creates the triggers of new or changed definitions and builds the JSON of the rows of each type
 * whose own definition is new or changed; drops the triggers of definitions the model no longer has
 * (the columns stay, unused). Runs inside the migration's transaction, after the tables, counters and
 * stored ETags. Returns the tables whose rows' JSON was built.
 */
export async function maintainPostgresEntityJson(s: PostgresSession, model: EdmModel): Promise<string[]> {
  await s.exec(`CREATE TABLE IF NOT EXISTS ${q(REGISTRY)} ("key" text NOT NULL PRIMARY KEY, "fn" text NOT NULL, "definition" text NOT NULL)`);
  const rows = (await s.all({ sql: `SELECT "key", "fn", "definition" FROM ${q(REGISTRY)}`, params: [] })) as { key: string; fn: string; definition: string }[];
  const stored = new Map(rows.map((r) => [r.key, r]));
  const rebuilt: string[] = [];
  for (const def of definitions(model)) {
    const definition = definitionLines(def).join(';\n');
    const before = stored.get(def.key);
    stored.delete(def.key);
    if (before?.definition === definition) continue;
    // CASCADE drops the function's triggers, wherever they are.
    await s.exec(`DROP FUNCTION IF EXISTS ${q(before?.fn ?? def.fn)}() CASCADE`);
    for (const sql of def.statements) await s.exec(sql);
    if (def.rebuild !== undefined) {
      await s.exec(`UPDATE ${q(def.rebuild)} SET ${q(HIDDEN_COLUMNS.entityJson)} = NULL`);
      rebuilt.push(def.rebuild);
    }
    await s.run({
      sql: `INSERT INTO ${q(REGISTRY)} ("key", "fn", "definition") VALUES ($1, $2, $3) ON CONFLICT ("key") DO UPDATE SET "fn" = EXCLUDED."fn", "definition" = EXCLUDED."definition"`,
      params: [def.key, def.fn, definition],
    });
  }
  for (const gone of stored.values()) {
    await s.exec(`DROP FUNCTION IF EXISTS ${q(gone.fn)}() CASCADE`);
    await s.run({ sql: `DELETE FROM ${q(REGISTRY)} WHERE "key" = $1`, params: [gone.key] });
  }
  return rebuilt;
}

