/**
 * Checks a row must pass before it is written, run inside the write transaction: required fields,
 * unique values and alternate keys within the company (409), and references that must resolve
 * (checkOnWrite navigations).
 */
import { statementsOf } from '../sql/statement-cache.js';
import { and, col, constant, eq, param, select, bin } from '../sql/build.js';
import type { EntityType } from '../edm/model.js';
import type { StoredValue } from '../edm/values.js';
import { BodyValidationError, ConflictError } from '../errors/odata-error.js';
import { companyCondition } from '../query/plan-read.js';
import type { ServiceContext } from './service-context.js';
import type { DbRow, Statements } from '../db/engine.js';

/** A row being written: stored values by property name. */
export type RowValues = Map<string, StoredValue>;

/** 400 when a required property has no value after defaults. */
export function checkRequired(type: EntityType, row: RowValues): void {
  for (const p of type.properties) {
    if (p.storage.kind !== 'column' || p.nullable) continue;
    const v = row.get(p.name);
    if (v === undefined || v === null) {
      throw new BodyValidationError('Application_FieldValidationException', `The field '${p.name}' of ${type.name} must have a value.`, p.name);
    }
  }
}

/** true when a row matches; `companyId` undefined searches every company (keys are global). */
async function exists(svc: ServiceContext, tx: Statements, type: EntityType, companyId: string | undefined, conditions: [string, StoredValue][], exceptKey?: StoredValue): Promise<boolean> {
  const scoped = companyId !== undefined;
  const except = exceptKey !== undefined;
  const values: StoredValue[] = [...(scoped ? [companyId] : []), ...conditions.map(([, v]) => v), ...(except ? [exceptKey] : [])];
  const shape = `exists ${scoped ? 'company ' : ''}${conditions.map(([c]) => c).join(',')}${except ? ' except' : ''}`;
  const q = statementsOf(type, svc.engine.dialect).compiled(shape, values, (v) => {
    const at = scoped ? 1 : 0;
    const where = and(
      scoped ? companyCondition(type, 'x', String(v[0])) : undefined,
      ...conditions.map(([c], i) => eq(col('x', c), param(v[at + i] ?? null))),
      except ? bin('<>', col('x', type.key.name), param(v[at + conditions.length] ?? null)) : undefined,
    );
    return select({ columns: [{ expr: constant(1), alias: 'one' }], from: { kind: 'table', table: type.table, alias: 'x' }, where, limit: constant(1) });
  });
  return (await tx.get(q)) !== undefined;
}

/** 409 when the key (globally), a unique property or an alternate key (within the company) is taken by another row. */
export async function checkUnique(svc: ServiceContext, tx: Statements, type: EntityType, companyId: string | undefined, row: RowValues, changed: ReadonlySet<string>, selfKey?: StoredValue): Promise<void> {
  for (const p of type.properties) {
    if (!(p.unique || p === type.key) || !changed.has(p.name)) continue;
    const v = row.get(p.name);
    if (v === undefined || v === null) continue;
    const scope = p === type.key || type.scope !== 'company' ? undefined : companyId;
    if (await exists(svc, tx, type, scope, [[p.name, v]], selfKey)) {
      throw new ConflictError(`The ${type.name} already exists. Identification fields and values: ${p.name}='${String(v)}'.`, 'Internal_EntityWithSameKeyExists', p.name);
    }
  }
  const scope = type.scope === 'company' ? companyId : undefined;
  for (const key of type.alternateKeys) {
    if (!key.some((p) => changed.has(p.name))) continue;
    const values = key.map((p) => [p.name, row.get(p.name) ?? null] as [string, StoredValue]);
    if (values.some(([, v]) => v === null)) continue;
    if (await exists(svc, tx, type, scope, values, selfKey)) {
      const shown = values.map(([name, v]) => `${name}='${String(v)}'`).join(', ');
      throw new ConflictError(`The ${type.name} already exists. Identification fields and values: ${shown}.`, 'Internal_EntityWithSameKeyExists', key[0]?.name);
    }
  }
}

/**
 * The row a new row is created under, read or written earlier in the same transaction: the entity a
 * POST's navigation starts from, or the row a deep insert just created. A reference to it is known to
 * hold, so it is not looked up again.
 */
export interface ParentRow {
  readonly type: EntityType;
  readonly row: DbRow;
}

/** 400 when a changed reference field names no row of the referenced type in the same company (`parent` needs no lookup). */
export async function checkReferences(svc: ServiceContext, tx: Statements, type: EntityType, companyId: string | undefined, row: RowValues, changed: ReadonlySet<string>, parent?: ParentRow): Promise<void> {
  for (const nav of type.navigations) {
    if (!nav.checkOnWrite || nav.collection) continue;
    if (!nav.joins.some((j) => changed.has(j.sourceProperty))) continue;
    const values = nav.joins.map((j) => [j.targetProperty, row.get(j.sourceProperty) ?? null] as [string, StoredValue]);
    if (values.some(([, v]) => v === null || v === '')) continue;
    if (parent !== undefined && nav.target === parent.type && nav.joins.every((j) => row.get(j.sourceProperty) === parent.row[j.targetProperty])) continue;
    if (!(await exists(svc, tx, nav.target, nav.target.scope === 'company' ? companyId : undefined, values))) {
      const field = nav.joins[0]?.sourceProperty ?? nav.name;
      const shown = values.map(([, v]) => String(v)).join(', ');
      throw new BodyValidationError(
        'Application_FieldValidationException',
        `The field ${field} of ${type.name} contains a value (${shown}) that cannot be found in the related table (${nav.target.name}).`,
        field,
      );
    }
  }
}
