/**
 * Walks a bound resource path against the database: every step before the last must exist (404
 * otherwise), and the last step becomes the conditions that select its rows (key and/or the join
 * from the previous row; a key predicate by key or by alternate key). Reads only; callers run it inside their transaction when they write.
 */
import type { DbRow } from '../db/engine.js';
import type { EntityType } from '../edm/model.js';
import type { StoredValue } from '../edm/values.js';
import { NotFoundError } from '../errors/odata-error.js';
import { planSelect, type PathCondition } from '../query/plan-select.js';
import type { PathStep } from '../uri/bound-path.js';
import type { StoreContext } from './store-context.js';
import type { Statements } from '../db/engine.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import { statementsOf } from '../sql/statement-cache.js';

/** The resolved last step of a path. */
export interface ResolvedPath {
  readonly step: PathStep;
  /** Conditions selecting the last step's rows. */
  readonly conditions: readonly PathCondition[];
  /** Row of the step before the last, when the last step is a navigation. */
  readonly parentRow?: DbRow;
  /** Key of every step that addressed one entity (for context URLs); undefined for collection steps. */
  readonly keys: readonly StoredValue[];
  /** false when the path leads through a null reference: the last step can have no rows. */
  readonly reachable: boolean;
}

/** The `Internal_RecordNotFound` error of a missing entity (BC's wording). */
export function recordNotFound(type: EntityType, conditions: readonly PathCondition[]): NotFoundError {
  const ids = conditions.map((c) => `${c.property}='${String(c.value)}'`).join(', ');
  return new NotFoundError(`The ${type.name} does not exist. Identification fields and values: ${ids}`, 'Internal_RecordNotFound');
}

function conditionsFor(step: PathStep, parentRow: DbRow | undefined): { conditions: PathCondition[]; reachable: boolean } {
  const conditions: PathCondition[] = [];
  let reachable = true;
  if (step.nav !== undefined && parentRow !== undefined) {
    for (const j of step.nav.joins) {
      const v = parentRow[j.sourceProperty] as StoredValue | undefined;
      if (v === null || v === undefined) reachable = false;
      conditions.push({ property: j.targetProperty, value: v ?? null });
    }
  }
  for (const c of step.keyConditions ?? []) conditions.push({ property: c.property, value: c.value });
  return { conditions, reachable };
}

/** Reads one row of a type by conditions (undefined when absent) with `db`: the engine's statements, or a transaction's. */
export function readRow(svc: StoreContext, db: Statements, type: EntityType, companyId: string | undefined, conditions: readonly PathCondition[]): MaybePromise<DbRow | undefined> {
  const scoped = companyId !== undefined;
  const values = scoped ? [companyId, ...conditions.map((c) => c.value)] : conditions.map((c) => c.value);
  const shape = `read ${scoped ? 'company ' : ''}${conditions.map((c) => c.property).join(',')}`;
  return db.get(
    statementsOf(type, svc.engine.dialect).compiled(shape, values, (v) => {
      const at = scoped ? 1 : 0;
      return planSelect({ type, companyId: scoped ? String(v[0]) : undefined, conditions: conditions.map((c, i) => ({ property: c.property, value: v[at + i] as StoredValue })), limit: 1 });
    }),
  );
}

/**
 * Resolves the steps of a path with `db`; throws (or rejects) 404 when a step before the last does
 * not exist. Synchronous where the engine answers at once (the request path of SQLite).
 */
export function resolvePath(svc: StoreContext, db: Statements, steps: readonly PathStep[], companyId: string | undefined): MaybePromise<ResolvedPath> {
  const keys: StoredValue[] = [];
  const from = (i: number, parentRow: DbRow | undefined): MaybePromise<ResolvedPath> => {
    if (i === steps.length - 1) {
      const step = steps[i] as PathStep;
      const { conditions, reachable } = conditionsFor(step, parentRow);
      if (step.key !== undefined) keys.push(step.key);
      return { step, conditions, parentRow, keys, reachable };
    }
    const step = steps[i] as PathStep;
    const { conditions, reachable } = conditionsFor(step, parentRow);
    return andThen(reachable ? readRow(svc, db, step.type, companyId, conditions) : undefined, (row) => {
      if (row === undefined) throw recordNotFound(step.type, conditions);
      keys.push(row[step.type.key.name] as StoredValue);
      return from(i + 1, row);
    });
  };
  return from(0, undefined);
}

/** The row a path addresses with its type and the keys of its steps (for context URLs), or 404. */
export interface LoadedTarget {
  readonly type: EntityType;
  readonly row: DbRow;
  readonly keys: StoredValue[];
}

/** Resolves a path and loads the one entity it addresses, in the write transaction `tx`. */
export async function loadTarget(svc: StoreContext, tx: Statements, steps: readonly PathStep[], companyId: string | undefined): Promise<LoadedTarget> {
  const resolved = await resolvePath(svc, tx, steps, companyId);
  const type = resolved.step.type;
  const row = resolved.reachable ? await readRow(svc, tx, type, companyId, resolved.conditions) : undefined;
  if (row === undefined) throw recordNotFound(type, resolved.conditions);
  const keys = [...resolved.keys];
  if (resolved.step.key === undefined) keys.push(row[type.key.name] as StoredValue);
  return { type, row, keys };
}
