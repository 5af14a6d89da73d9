/**
 * Inserts one entity row with everything the model implies: defaults, auto-modified stamps, the row
 * version, required/reference/uniqueness checks, and the hidden company. Split in two so the write
 * session can run validateWrite hooks between the checks and the INSERT; seeding uses both at once.
 * The caller owns the transaction.
 */
import { and, param } from '../sql/build.js';
import type { SqlExpr } from '../sql/nodes.js';
import { writesOf } from '../sql/statement-cache.js';
import { HIDDEN_COLUMNS, type EntityType } from '../edm/model.js';
import type { DbRow } from '../db/engine.js';
import { applyDefaults, hasGeneratedKey } from './apply-defaults.js';
import { checkRequired, matchingRow, referenceChecks, runReferenceChecks, runUniqueChecks, uniqueChecks, type ParentRow, type ReferenceCheck, type RowValues } from './write-checks.js';
import { returningColumns, writeReturnsRow } from '../query/plan-returning.js';
import { readRow } from './resolve-path.js';
import type { CompiledQuery } from '../sql/compile.js';
import { assignRowSecret } from './row-secret.js';
import { formatEtag } from '../edm/etag.js';
import type { StoreContext } from './store-context.js';
import type { Statements } from '../db/engine.js';
import type { NumberReservations } from './number-series.js';

/** Who writes and when. */
export interface WriteStamp {
  readonly userId: string;
  readonly now: Date;
  /** The write session's number counters (see NumberReservations). */
  readonly numbers?: NumberReservations;
  /**
   * Inserts of a bulk load store no ETag text (db/sqlite/sqlite-stored-etags.ts: reads compute it, start-up stores
   * it), so SQLite's triggers do not build those rows' entity JSON one row at a time
   * (db/sqlite/sqlite-entity-json.ts): about 9 µs a row, with the statement journal in memory.
   */
  readonly bulk?: boolean;
}

let lastTime: Date | undefined;
let lastIso = '';

/** `now.toISOString()`, remembered for the last Date (every row of a bulk batch shares one). */
export function isoTime(now: Date): string {
  if (now !== lastTime) {
    lastTime = now;
    lastIso = now.toISOString();
  }
  return lastIso;
}

/**
 * The version a write gives a row: the clock's, or one past the stored version when another process's
 * clock is ahead (instances share the database, not the clock): every write of a row changes its
 * ETag, whichever instance makes it. `stored` is the version the UPDATE is conditional on.
 */
export function nextRowVersion(svc: StoreContext, stored?: unknown): number {
  const clock = svc.nextVersion();
  const after = stored === undefined || stored === null ? 0 : Number(stored) + 1;
  return clock > after ? clock : after;
}

/**
 * Sets the auto-modified properties, a new row version (past `stored`, see nextRowVersion) and, unless
 * `bulk` (WriteStamp.bulk), its stored ETag on a row being written.
 */
export function stampRow(svc: StoreContext, type: EntityType, row: RowValues, now: Date, stored?: unknown, bulk = false): void {
  const at = isoTime(now);
  for (const p of type.properties) if (p.autoModified) row.set(p.name, at);
  const version = nextRowVersion(svc, stored);
  row.set(HIDDEN_COLUMNS.version, version);
  if (bulk) return;
  row.set(HIDDEN_COLUMNS.etag, formatEtag(version));
  row.set(HIDDEN_COLUMNS.etagVersion, version);
}

/**
 * Fills defaults (and the row secret), stamps the row and runs the model's checks (the part of an
 * insert before hooks see the row); a reference to `parent` (see ParentRow) is not looked up.
 * Returns the references left for the INSERT to check (ReferenceCheck): with `guardReferences` (the
 * caller writes the row next, with nothing in between that could see it) and no unique value to look
 * up after them, the INSERT is written only if they hold (insertStatement), one statement instead of
 * one more per reference. When it writes nothing, the same lookups run to say which one failed, so
 * the answer and the order of the checks are those of looking them up here.
 */
export async function prepareInsert(
  svc: StoreContext,
  tx: Statements,
  type: EntityType,
  companyId: string | undefined,
  row: RowValues,
  stamp: WriteStamp,
  parent?: ParentRow,
  guardReferences = false,
): Promise<readonly ReferenceCheck[]> {
  const filled = await applyDefaults(svc, tx, type, row, { userId: stamp.userId, now: stamp.now, companyId, ...(stamp.numbers === undefined ? {} : { numbers: stamp.numbers }) });
  assignRowSecret(type, row);
  stampRow(svc, type, row, stamp.now, undefined, stamp.bulk === true);
  checkRequired(type, row);
  const changed = new Set(row.keys());
  const references = referenceChecks(type, row, changed, parent);
  // A fresh UUIDv7 (filled now, or given to a change set's row before its transaction) cannot be taken,
  // and a number series skips taken numbers: only given values can clash.
  for (const p of filled) if (p.default?.kind === 'guid' || p.default?.kind === 'numberSeries') changed.delete(p.name);
  if (hasGeneratedKey(type, row)) changed.delete(type.key.name);
  const unique = uniqueChecks(type, row, changed);
  if (guardReferences && unique.length === 0) return references;
  await runReferenceChecks(svc, tx, type, companyId, references);
  await runUniqueChecks(svc, tx, type, companyId, unique);
  return [];
}

/** Writes a prepared row (with the hidden company), without returning it; `guard`: see prepareInsert. */
export async function insertRow(svc: StoreContext, tx: Statements, type: EntityType, companyId: string | undefined, row: RowValues, guard: readonly ReferenceCheck[] = []): Promise<void> {
  const written = await tx.run(insertStatement(svc, type, companyId, row, false, guard));
  if (written === 0 && guard.length > 0) await guardFailed(svc, tx, type, companyId, guard);
}

/**
 * Writes a prepared row (with the hidden company) and returns it as stored: the INSERT returns it
 * (one statement), or, for a type whose computed properties read its own table
 * (query/plan-returning.ts), it is read back. `guard`: see prepareInsert.
 */
export async function writeInsert(svc: StoreContext, tx: Statements, type: EntityType, companyId: string | undefined, row: RowValues, guard: readonly ReferenceCheck[] = []): Promise<DbRow> {
  let stored: DbRow | undefined;
  if (writeReturnsRow(type)) {
    stored = await tx.runReturning(insertStatement(svc, type, companyId, row, true, guard));
    if (stored === undefined && guard.length > 0) await guardFailed(svc, tx, type, companyId, guard);
  } else {
    await insertRow(svc, tx, type, companyId, row, guard);
    stored = await readRow(svc, tx, type, companyId, [{ property: type.key.name, value: row.get(type.key.name) ?? null }]);
  }
  if (stored === undefined) throw new Error(`inserted ${type.name} row not found`);
  return stored;
}

/** A guarded INSERT wrote nothing: the lookups say which reference failed (in the same transaction, so one does). */
async function guardFailed(svc: StoreContext, tx: Statements, type: EntityType, companyId: string | undefined, guard: readonly ReferenceCheck[]): Promise<never> {
  await runReferenceChecks(svc, tx, type, companyId, guard);
  throw new Error(`the INSERT of a ${type.name} wrote no row, yet its references hold`);
}

/** The INSERT of a prepared row, RETURNING the entity's columns when `returning`, written only if the `guard` references hold. */
function insertStatement(svc: StoreContext, type: EntityType, companyId: string | undefined, row: RowValues, returning: boolean, guard: readonly ReferenceCheck[]): CompiledQuery {
  // The order of the columns does not matter: one shape per set of columns.
  const columns = [...row.keys()].sort();
  const params = columns.map((c) => row.get(c) ?? null);
  if (type.scope === 'company') {
    columns.push(HIDDEN_COLUMNS.company);
    params.push(companyId ?? null);
  }
  const n = params.length;
  // The guard's values follow the row's: the company (when a referenced type is a company's), then each reference's.
  const scoped = guard.some((g) => g.nav.target.scope === 'company');
  if (scoped) params.push(companyId ?? null);
  for (const g of guard) for (const [, v] of g.values) params.push(v);
  const shape = `insert${returning ? ' returning' : ''} ${columns.join(',')}${guard.length === 0 ? '' : ` if ${guard.map((g) => g.nav.name).join(',')}`}`;
  return writesOf(type, svc.engine.dialect).compiled(shape, params, (v) => {
    let at = scoped ? n + 1 : n;
    const onlyIf = and(
      ...guard.map((g, i): SqlExpr => {
        const company = g.nav.target.scope === 'company' ? param(v[n] ?? null) : undefined;
        const conditions = g.values.map(([c]) => [c, param(v[at++] ?? null)] as const);
        return { kind: 'exists', query: matchingRow(g.nav.target, `r${i}`, company, conditions), negated: false };
      }),
    );
    return {
      kind: 'insert',
      table: type.table,
      columns,
      values: v.slice(0, n).map((x) => param(x)),
      ...(onlyIf === undefined ? {} : { onlyIf }),
      ...(returning ? { returning: returningColumns(type) } : {}),
    };
  });
}

/** Inserts a row (values by property name, stored form) and returns it as stored; runs no hooks (seeding). */
export async function insertEntity(svc: StoreContext, tx: Statements, type: EntityType, companyId: string | undefined, row: RowValues, stamp: WriteStamp): Promise<DbRow> {
  const guard = await prepareInsert(svc, tx, type, companyId, row, stamp, undefined, true);
  return writeInsert(svc, tx, type, companyId, row, guard);
}
