/**
 * The generic UPDATE and DELETE of one stored row, in the same two steps as inserts: check (merge the
 * changes with the stored row, then required/reference/uniqueness checks), then write (stamps, row
 * version, statement returning the row as stored). The write session runs validateWrite hooks between the two.
 * The caller owns the transaction.
 */
import { compile } from '../sql/compile.js';
import { and, bin, col, constant, eq, param } from '../sql/build.js';
import type { SqlExpr } from '../sql/nodes.js';
import { companyCondition, type PathCondition } from '../query/plan-select.js';
import { HIDDEN_COLUMNS, type EntityType } from '../edm/model.js';
import { PreconditionFailedError } from '../errors/odata-error.js';
import type { StoredValue } from '../edm/values.js';
import type { DbRow } from '../db/engine.js';
import { checkReferences, checkRequired, checkUnique, type RowValues } from './write-checks.js';
import { isoTime, stampRow } from './insert-entity.js';
import { returningColumns, writeReturnsRow } from '../query/plan-returning.js';
import { writesOf } from '../sql/statement-cache.js';
import { readRow } from './resolve-path.js';
import type { StoreContext } from './store-context.js';
import type { Statements } from '../db/engine.js';

/** The stored columns of `before` with `changes` applied (what the row will hold). */
export function mergeChanges(type: EntityType, before: DbRow, changes: ReadonlyMap<string, StoredValue>): RowValues {
  const merged: RowValues = new Map();
  for (const p of type.properties) if (p.storage.kind === 'column') merged.set(p.name, (before[p.name] ?? null) as StoredValue);
  for (const [k, v] of changes) merged.set(k, v);
  return merged;
}

/** The model's checks of an update: required fields, references and unique values that changed. */
export async function checkUpdate(svc: StoreContext, tx: Statements, type: EntityType, companyId: string | undefined, merged: RowValues, changed: ReadonlySet<string>, key: StoredValue): Promise<void> {
  checkRequired(type, merged);
  await checkReferences(svc, tx, type, companyId, merged, changed);
  await checkUnique(svc, tx, type, companyId, merged, changed, key);
}

/**
 * Stamps and writes the changes of the loaded row `before`; returns the row as stored: the UPDATE
 * returns it (one statement), or, for a type whose computed properties read its own table
 * (query/plan-returning.ts), it is read back. The UPDATE is conditional on the version `before` was
 * loaded with (If-Match in the database): when another transaction changed the row since (another
 * instance, on an engine whose transactions do not lock what they read), nothing is written and the
 * answer is 412, so two writers can never both act on the same version.
 */
export async function writeUpdate(svc: StoreContext, tx: Statements, type: EntityType, companyId: string | undefined, before: DbRow, changes: ReadonlyMap<string, StoredValue>, now: Date): Promise<DbRow> {
  const values: RowValues = new Map(changes);
  stampRow(svc, type, values, now, before[HIDDEN_COLUMNS.version]);
  // The order of SET does not matter: one shape per set of columns, whatever order the body named them in.
  const columns = [...values.keys()].sort();
  const params = columns.map((c) => values.get(c) ?? null);
  const key = before[type.key.name] as StoredValue;
  params.push(key, before[HIDDEN_COLUMNS.version] as StoredValue);
  const returning = writeReturnsRow(type);
  const q = writesOf(type, svc.engine.dialect).compiled(`update${returning ? ' returning' : ''} ${columns.join(',')}`, params, (v) => ({
    kind: 'update',
    table: type.table,
    set: columns.map((column, i) => ({ column, value: param(v[i] as StoredValue) })),
    where: bin('AND', eq(col(type.table, type.key.name), param(v[columns.length] as StoredValue)), eq(col(type.table, HIDDEN_COLUMNS.version), param(v[columns.length + 1] as StoredValue))),
    ...(returning ? { returning: returningColumns(type) } : {}),
  }));
  if (returning) {
    const stored = await tx.runReturning(q);
    if (stored === undefined) throw new PreconditionFailedError();
    return stored;
  }
  if ((await tx.run(q)) === 0) throw new PreconditionFailedError();
  const stored = await readRow(svc, tx, type, companyId, [{ property: type.key.name, value: key }]);
  if (stored === undefined) throw new Error(`updated ${type.name} row not found`);
  return stored;
}

/**
 * The UPDATE of the row `conditions` select (in the company), without reading it first: the stamps are
 * computed by the statement (a version past the stored one and the clock's, as nextRowVersion gives,
 * and its ETag), and with `version` (If-Match) it writes only that version of the row. Returns the row
 * as stored, or undefined when nothing was written (no such row, or another version): the caller then
 * reads it to say which. For a type whose write returns its row (query/plan-returning.ts).
 */
export async function writeUpdateWhere(
  svc: StoreContext,
  tx: Statements,
  type: EntityType,
  companyId: string | undefined,
  conditions: readonly PathCondition[],
  changes: ReadonlyMap<string, StoredValue>,
  now: Date,
  version: number | undefined,
): Promise<DbRow | undefined> {
  const values: RowValues = new Map(changes);
  const at = isoTime(now);
  for (const p of type.properties) if (p.autoModified) values.set(p.name, at);
  const columns = [...values.keys()].sort();
  const scoped = type.scope === 'company';
  const params: StoredValue[] = [...columns.map((c) => values.get(c) ?? null), svc.nextVersion(), ...(scoped ? [companyId ?? null] : []), ...conditions.map((c) => c.value)];
  if (version !== undefined) params.push(version);
  const shape = `update where ${conditions.map((c) => c.property).join(',')}${version === undefined ? '' : ' version'} set ${columns.join(',')}`;
  const d = svc.engine.dialect;
  const { version: versionColumn, etag, etagVersion } = HIDDEN_COLUMNS;
  const q = writesOf(type, d).compiled(shape, params, (v) => {
    let i = 0;
    const next = (): SqlExpr => param(v[i++] as StoredValue);
    const set = columns.map((column) => ({ column, value: next() }));
    const stamped = d.larger(next(), bin('+', col(type.table, versionColumn), constant(1)));
    set.push({ column: versionColumn, value: stamped }, { column: etag, value: d.rowEtag(stamped) }, { column: etagVersion, value: stamped });
    const company = scoped ? companyCondition(type, type.table, String(v[i++])) : undefined;
    const where = and(company, ...conditions.map((c) => eq(col(type.table, c.property), next())), version === undefined ? undefined : eq(col(type.table, versionColumn), next()));
    if (where === undefined) throw new Error(`an UPDATE of ${type.name} without conditions`);
    return { kind: 'update', table: type.table, set, where, returning: returningColumns(type) };
  });
  return tx.runReturning(q);
}

/** Deletes one row by key; contained children go with it through the foreign keys' ON DELETE CASCADE. */
export async function writeDelete(svc: StoreContext, tx: Statements, type: EntityType, key: StoredValue): Promise<void> {
  await tx.run(compile({ kind: 'delete', table: type.table, where: eq(col(type.table, type.key.name), param(key)) }, svc.engine.dialect));
}
