/**
 * Inserts one entity row with everything the model implies: defaults, auto-modified stamps, the row
 * version, required/reference/uniqueness checks, and the hidden company. Split in two so the write
 * session can run validateWrite hooks between the checks and the INSERT; seeding uses both at once.
 * The caller owns the transaction.
 */
import { param } from '../sql/build.js';
import { writesOf } from '../sql/statement-cache.js';
import { HIDDEN_COLUMNS, type EntityType } from '../edm/model.js';
import type { DbRow } from '../db/database.js';
import { applyDefaults, hasGeneratedKey } from './apply-defaults.js';
import { checkReferences, checkRequired, checkUnique, type ParentRow, type RowValues } from './write-checks.js';
import { returningColumns, writeReturnsRow } from '../query/plan-returning.js';
import { readRow } from './resolve-path.js';
import type { CompiledQuery } from '../sql/compile.js';
import { assignRowSecret } from './row-secret.js';
import { formatEtag } from '../serialize/etag.js';
import type { ServiceContext } from './service-context.js';
import type { Statements } from '../db/engine.js';
import type { NumberReservations } from './number-series.js';

/** Who writes and when. */
export interface WriteStamp {
  readonly userId: string;
  readonly now: Date;
  /** The write session's number counters (see NumberReservations). */
  readonly numbers?: NumberReservations;
}

let lastTime: Date | undefined;
let lastIso = '';

/** `now.toISOString()`, remembered for the last Date (every row of a bulk batch shares one). */
function isoTime(now: Date): string {
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
export function nextRowVersion(svc: ServiceContext, stored?: unknown): number {
  const clock = svc.nextVersion();
  const after = stored === undefined || stored === null ? 0 : Number(stored) + 1;
  return clock > after ? clock : after;
}

/** Sets the auto-modified properties, a new row version (past `stored`, see nextRowVersion) and its stored ETag on a row being written. */
export function stampRow(svc: ServiceContext, type: EntityType, row: RowValues, now: Date, stored?: unknown): void {
  const at = isoTime(now);
  for (const p of type.properties) if (p.autoModified) row.set(p.name, at);
  const version = nextRowVersion(svc, stored);
  row.set(HIDDEN_COLUMNS.version, version);
  row.set(HIDDEN_COLUMNS.etag, formatEtag(version));
  row.set(HIDDEN_COLUMNS.etagVersion, version);
}

/**
 * Fills defaults (and the row secret), stamps the row and runs the model's checks (the part of an
 * insert before hooks see the row); a reference to `parent` (see ParentRow) is not looked up.
 */
export async function prepareInsert(svc: ServiceContext, tx: Statements, type: EntityType, companyId: string | undefined, row: RowValues, stamp: WriteStamp, parent?: ParentRow): Promise<void> {
  const filled = await applyDefaults(svc, tx, type, row, { userId: stamp.userId, now: stamp.now, companyId, ...(stamp.numbers === undefined ? {} : { numbers: stamp.numbers }) });
  assignRowSecret(type, row);
  stampRow(svc, type, row, stamp.now);
  checkRequired(type, row);
  const changed = new Set(row.keys());
  await checkReferences(svc, tx, type, companyId, row, changed, parent);
  // A fresh UUIDv7 (filled now, or given to a change set's row before its transaction) cannot be taken,
  // and a number series skips taken numbers: only given values can clash.
  for (const p of filled) if (p.default?.kind === 'guid' || p.default?.kind === 'numberSeries') changed.delete(p.name);
  if (hasGeneratedKey(type, row)) changed.delete(type.key.name);
  await checkUnique(svc, tx, type, companyId, row, changed);
}

/** Writes a prepared row (with the hidden company), without returning it. */
export async function insertRow(svc: ServiceContext, tx: Statements, type: EntityType, companyId: string | undefined, row: RowValues): Promise<void> {
  await tx.run(insertStatement(svc, type, companyId, row, false));
}

/**
 * Writes a prepared row (with the hidden company) and returns it as stored: the INSERT returns it
 * (one statement), or, for a type whose computed properties read its own table
 * (query/plan-returning.ts), it is read back.
 */
export async function writeInsert(svc: ServiceContext, tx: Statements, type: EntityType, companyId: string | undefined, row: RowValues): Promise<DbRow> {
  let stored: DbRow | undefined;
  if (writeReturnsRow(type)) stored = await tx.runReturning(insertStatement(svc, type, companyId, row, true));
  else {
    await insertRow(svc, tx, type, companyId, row);
    stored = await readRow(svc, tx, type, companyId, [{ property: type.key.name, value: row.get(type.key.name) ?? null }]);
  }
  if (stored === undefined) throw new Error(`inserted ${type.name} row not found`);
  return stored;
}

/** The INSERT of a prepared row, RETURNING the entity's columns when `returning`. */
function insertStatement(svc: ServiceContext, type: EntityType, companyId: string | undefined, row: RowValues, returning: boolean): CompiledQuery {
  // The order of the columns does not matter: one shape per set of columns.
  const columns = [...row.keys()].sort();
  const params = columns.map((c) => row.get(c) ?? null);
  if (type.scope === 'company') {
    columns.push(HIDDEN_COLUMNS.company);
    params.push(companyId ?? null);
  }
  return writesOf(type, svc.engine.dialect).compiled(`insert${returning ? ' returning' : ''} ${columns.join(',')}`, params, (v) => ({
    kind: 'insert',
    table: type.table,
    columns,
    values: v.map((x) => param(x)),
    ...(returning ? { returning: returningColumns(type) } : {}),
  }));
}

/** Inserts a row (values by property name, stored form) and returns it as stored; runs no hooks (seeding). */
export async function insertEntity(svc: ServiceContext, tx: Statements, type: EntityType, companyId: string | undefined, row: RowValues, stamp: WriteStamp): Promise<DbRow> {
  await prepareInsert(svc, tx, type, companyId, row, stamp);
  return writeInsert(svc, tx, type, companyId, row);
}
