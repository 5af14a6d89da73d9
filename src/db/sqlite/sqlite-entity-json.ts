/**
 * Each row's entity JSON kept in its hidden column `_entityJson` on SQLite too (EngineCapabilities.storedEntityJson),
 * so a read copies one text per row instead of building it: for a page of ECNs with their comments
 * and BOM lines, copying took SQLite half the time building did. The JSON is the object
 * query/plan-stored-json.ts defines, kept by triggers in the database, so every writer's change counts:
 * - AFTER INSERT (of a row with its stored ETag), and AFTER UPDATE when a column it reads changed or
 *   the text was set to NULL, the row's JSON is built again (SQLite's BEFORE triggers cannot set the
 *   new row's columns, so the trigger updates the row; that update does not fire it again, also where
 *   a connection turned recursive_triggers on);
 * - AFTER a change on each table a lookup reads, the rows that reach the changed row (before and
 *   after the change) get NULL, which makes their own trigger build it again.
 * A trigger runs in every connection that writes, a sqlite3 shell's too, where the service's
 * JavaScript functions are missing: so the trigger's JSON is the object without them
 * (sql/without-calls.ts), kept only where they were not needed (the stored ETag is the row version's,
 * each decimal is one SQL spells as JavaScript does) and NULL elsewhere; reads build the object for
 * a NULL (COALESCE). Definitions are kept in `_entityJsonDefs`: a changed model or SQLite version
 * recreates the triggers at start-up and builds the type's rows' JSON again (migrate's transaction).
 */
import type { EdmModel, EntityType } from '../../edm/model.js';
import { HIDDEN_COLUMNS } from '../../edm/model.js';
import { keepsEntityJson } from '../../edm/keeps-entity-json.js';
import { reachesRow, STORED_ROW_ALIAS, storedJsonDependencies, storedJsonInputs, storedJsonParts, type StoredJsonDependency } from '../../query/plan-stored-json.js';
import { bin, col, select } from '../../sql/build.js';
import { compile, type CompiledQuery } from '../../sql/compile.js';
import type { JoinNode, SqlExpr, StatementNode } from '../../sql/nodes.js';
import { sqliteDialect } from './sqlite-dialect.js';
import { anyOf, joinUses, withoutCalls, type Exactness } from '../../sql/without-calls.js';
import type { Database } from './sqlite-database.js';
import type { Statements } from '../engine.js';
import { isServiceFunction } from './sqlite-functions.js';

const q = (name: string): string => sqliteDialect.quoteIdentifier(name);
const JSON_COLUMN = HIDDEN_COLUMNS.entityJson;

/** A value as an SQL literal (a trigger's body cannot bind parameters); the values are the model's, never a request's. */
function literal(value: unknown): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
  throw new Error(`a ${typeof value} value in the definition of a stored entity JSON`);
}

/** The text of a compiled statement with its `?` parameters (those outside quotes) written as literals. */
function inlined(c: CompiledQuery): string {
  let out = '';
  let quote: string | undefined;
  let n = 0;
  for (const ch of c.sql) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === '?') out += literal(c.params[n++]);
    else out += ch;
  }
  if (n !== c.params.length) throw new Error('a stored entity JSON statement has parameters the text does not show');
  return out;
}

const statementText = (node: StatementNode): string => inlined(compile(node, sqliteDialect));

/** An expression's text (a trigger's WHEN). */
function exprText(e: SqlExpr): string {
  return statementText({ kind: 'select', columns: [{ expr: e }], joins: [], orderBy: [] }).replace(/^SELECT /, '');
}

/** The JSON a type's row keeps: as a trigger builds it (without the service's functions, NULL where they were needed), and as reads build it. */
interface KeptJson {
  readonly kept: SqlExpr;
  readonly built: SqlExpr;
  /** When the two are the same object (the condition of `kept`). */
  readonly exact: Exactness;
  readonly joins: readonly JoinNode[];
}

/** `CASE WHEN <exact> THEN <e> END` */
const onlyIf = (exact: Exactness, e: SqlExpr): SqlExpr => (exact === true ? e : exact === false ? { kind: 'constant', value: null } : { kind: 'case', whens: [{ when: exact, then: e }] });

/** undefined when a trigger could build it for no row (the service's functions needed whatever the values). */
function keptJson(type: EntityType): KeptJson | undefined {
  const { json, joins } = storedJsonParts(type, sqliteDialect);
  if (joins.some((j) => joinUses(j, isServiceFunction))) return undefined;
  const { expr, exact } = withoutCalls(json, isServiceFunction);
  if (exact === false) return undefined;
  return { kept: onlyIf(exact, expr), built: json, exact, joins };
}

/** `(SELECT <kept JSON> FROM <table> AS t0 ... WHERE t0.rowid = <rowid>)` */
function jsonOfRow(type: EntityType, json: KeptJson, rowid: SqlExpr): SqlExpr {
  return {
    kind: 'subquery',
    query: select({ columns: [{ expr: json.kept }], from: { kind: 'table', table: type.table, alias: STORED_ROW_ALIAS }, joins: json.joins, where: bin('=', col(STORED_ROW_ALIAS, 'rowid'), rowid) }),
  };
}

/** `UPDATE <table> SET _entityJson = <kept JSON> WHERE rowid = <rowid>`; `rowid` of the table itself: every row. */
function buildSql(type: EntityType, json: KeptJson, rowid: SqlExpr): string {
  const where = bin('=', col(type.table, 'rowid'), rowid);
  return statementText({ kind: 'update', table: type.table, set: [{ column: JSON_COLUMN, value: jsonOfRow(type, json, rowid) }], where });
}

const rowTrigger = (type: EntityType, event: 'insert' | 'update'): string => `_jsonrow_${type.table}_${event}`;

/** The triggers that build a type's JSON. */
function rowTriggersSql(type: EntityType, json: KeptJson): string[] {
  const build = buildSql(type, json, col('new', 'rowid'));
  const olds = storedJsonInputs(type, 'old');
  const news = storedJsonInputs(type, 'new');
  // Cleared (a lookup's row changed), or a shown column changed. Not its own UPDATE that built the
  // text (or found it cannot: NULL again), which fires it again where recursive_triggers is on.
  const cleared = bin('AND', { kind: 'isNull', operand: col('new', JSON_COLUMN), negated: false }, { kind: 'isNull', operand: col('old', JSON_COLUMN), negated: true });
  const changed = anyOf(cleared, ...olds.map((o, i) => bin('IS NOT', o, news[i] as SqlExpr)));
  if (typeof changed === 'boolean') throw new Error('no inputs');
  const table = q(type.table);
  return [
    // A row inserted without its stored ETag (a bulk import, a writer that knows nothing of it) could
    // keep no JSON, whose @odata.etag is that text: the trigger does not run for it, and start-up's
    // stamping of the ETag (db/sqlite/sqlite-stored-etags.ts), an UPDATE, builds it.
    `CREATE TRIGGER ${q(rowTrigger(type, 'insert'))} AFTER INSERT ON ${table} WHEN ${exprText(bin('=', col('new', HIDDEN_COLUMNS.etagVersion), col('new', HIDDEN_COLUMNS.version)))} BEGIN ${build}; END`,
    `CREATE TRIGGER ${q(rowTrigger(type, 'update'))} AFTER UPDATE ON ${table} WHEN ${exprText(changed)} BEGIN ${build}; END`,
  ];
}

/** The name of a dependency's triggers (suffixed): another prefix than the row triggers', so the two never meet. */
const dependencyName = (dep: StoredJsonDependency): string => `_jsonlookup_${dep.type.table}_${dep.navigations.map((n) => n.name).join('_')}`;

/** `UPDATE <type> SET _entityJson = NULL WHERE <reaches the row> [AND also]` for the trigger's row `old` or `new`. */
function clearReaching(dep: StoredJsonDependency, row: 'old' | 'new', also?: SqlExpr): string {
  let where = bin('AND', reachesRow(dep, row), { kind: 'isNull', operand: col(dep.type.table, JSON_COLUMN), negated: true });
  if (also !== undefined) where = bin('AND', where, also);
  return statementText({ kind: 'update', table: dep.type.table, set: [{ column: JSON_COLUMN, value: { kind: 'constant', value: null } }], where });
}

/** The triggers of one dependency, on the table its rows are in. */
function dependencyTriggersSql(dep: StoredJsonDependency): string[] {
  const name = dependencyName(dep);
  const differ = (columns: readonly string[]): SqlExpr => anyOf(...columns.map((c) => bin('IS NOT', col('old', c), col('new', c)))) as SqlExpr;
  const table = q(dep.table);
  return [
    `CREATE TRIGGER ${q(`${name}_insert`)} AFTER INSERT ON ${table} BEGIN ${clearReaching(dep, 'new')}; END`,
    `CREATE TRIGGER ${q(`${name}_delete`)} AFTER DELETE ON ${table} BEGIN ${clearReaching(dep, 'old')}; END`,
    // The rows that reached the row before the change only when what decides it changed.
    `CREATE TRIGGER ${q(`${name}_update`)} AFTER UPDATE ON ${table} WHEN ${exprText(differ(dep.columns))} BEGIN ` +
      `${clearReaching(dep, 'new')}; ${clearReaching(dep, 'old', differ(dep.keys))}; END`,
  ];
}

/** A definition as the registry keeps it: its triggers' names and statements. */
interface Definition {
  readonly key: string;
  readonly triggers: readonly string[];
  readonly statements: readonly string[];
  /** A type's own definition: the type and its JSON, built again for every row when the definition changes. */
  readonly rebuild?: { readonly type: EntityType; readonly json: KeptJson };
}

function definitions(model: EdmModel): Definition[] {
  const defs: Definition[] = [];
  for (const type of model.entityTypes.filter(keepsEntityJson)) {
    const json = keptJson(type);
    if (json === undefined) continue;
    defs.push({ key: `type/${type.table}`, triggers: [rowTrigger(type, 'insert'), rowTrigger(type, 'update')], statements: rowTriggersSql(type, json), rebuild: { type, json } });
    for (const dep of storedJsonDependencies(type)) {
      const name = dependencyName(dep);
      defs.push({ key: `lookup/${name}`, triggers: ['insert', 'delete', 'update'].map((e) => `${name}_${e}`), statements: dependencyTriggersSql(dep) });
    }
  }
  return defs;
}

const REGISTRY = '_entityJsonDefs';

/**
 * Creates the triggers of new or changed definitions and builds the JSON of every row of each type
 * whose own definition is new or changed (or whose SQLite version changed: SQLite spells the numbers);
 * drops the triggers of definitions the model no longer has (the columns stay, unused). Runs inside
 * migrate's transaction, after the tables, counters and stored ETags. Returns the tables built again.
 */
export function maintainSqliteEntityJson(db: Database, model: EdmModel): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS ${q(REGISTRY)} ("key" TEXT NOT NULL PRIMARY KEY, "triggers" TEXT NOT NULL, "definition" TEXT NOT NULL) STRICT`);
  const version = (db.raw.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  const rows = db.raw.prepare(`SELECT "key", "triggers", "definition" FROM ${q(REGISTRY)}`).all() as { key: string; triggers: string; definition: string }[];
  const stored = new Map(rows.map((r) => [r.key, r]));
  const drop = (names: readonly string[]): void => {
    for (const name of names) db.exec(`DROP TRIGGER IF EXISTS ${q(name)}`);
  };
  const rebuilt: string[] = [];
  for (const def of definitions(model)) {
    const definition = [...def.statements, ...(def.rebuild === undefined ? [] : [`-- SQLite ${version}`])].join(';\n');
    const before = stored.get(def.key);
    stored.delete(def.key);
    if (before?.definition === definition) continue;
    drop(before === undefined ? def.triggers : JSON.parse(before.triggers));
    if (def.rebuild !== undefined) {
      // Before the type's own triggers exist, so each row is written once.
      const { type, json } = def.rebuild;
      db.exec(buildSql(type, json, col(type.table, 'rowid')));
      rebuilt.push(type.table);
    }
    for (const sql of def.statements) db.exec(sql);
    db.raw.prepare(`INSERT OR REPLACE INTO ${q(REGISTRY)} ("key", "triggers", "definition") VALUES (?, ?, ?)`).run(def.key, JSON.stringify(def.triggers), definition);
  }
  for (const gone of stored.values()) {
    drop(JSON.parse(gone.triggers));
    db.raw.prepare(`DELETE FROM ${q(REGISTRY)} WHERE "key" = ?`).run(gone.key);
  }
  return rebuilt;
}

/**
 * Rows whose stored entity JSON is not what a trigger would keep now: the object reads build (the
 * service's functions included) where a trigger can build it, NULL elsewhere. The tests run it after
 * every SQLite suite (test/helpers/test-service.ts); `UPDATE "<table>" SET "_entityJson" = NULL` builds a
 * stale text again (a row without one gets it with its next change, or its ETag's stamping).
 */
export async function staleSqliteEntityJson(s: Pick<Statements, 'get'>, model: EdmModel): Promise<Record<string, number>> {
  const stale: Record<string, number> = {};
  for (const type of model.entityTypes.filter(keepsEntityJson)) {
    const json = keptJson(type);
    // The object reads build, where the trigger's condition holds (the service's functions are not called there).
    const expected = json === undefined ? onlyIf(false, { kind: 'constant', value: null }) : onlyIf(json.exact, json.built);
    const joins = json?.joins ?? [];
    const count = select({
      columns: [{ expr: { kind: 'call', name: 'count', args: [{ kind: 'star' }] }, alias: 'n' }],
      from: { kind: 'table', table: type.table, alias: STORED_ROW_ALIAS },
      joins,
      where: bin('IS NOT', col(STORED_ROW_ALIAS, JSON_COLUMN), expected),
    });
    const n = Number((await s.get(compile(count, sqliteDialect)))?.['n'] ?? 0);
    if (n > 0) stale[type.table] = n;
  }
  return stale;
}
