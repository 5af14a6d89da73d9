/**
 * Checks a row must pass before it is written, run inside the write transaction: required fields,
 * unique values and alternate keys within the company (409), and references that must resolve
 * (checkOnWrite navigations).
 */
import { statementsOf } from '../sql/statement-cache.js';
import { and, col, constant, eq, param, select, bin } from '../sql/build.js';
import type { SelectNode, SqlExpr } from '../sql/nodes.js';
import { HIDDEN_COLUMNS, type EntityType, type NavigationProperty } from '../edm/model.js';
import type { StoredValue } from '../edm/values.js';
import { BodyValidationError, ConflictError } from '../errors/odata-error.js';
import type { StoreContext } from './store-context.js';
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

/**
 * The SELECT that finds a row of `type` matching `conditions` (column = value), within `company` when
 * given, other than the row whose key is `exceptKey` when given.
 */
export function matchingRow(type: EntityType, alias: string, company: SqlExpr | undefined, conditions: readonly (readonly [string, SqlExpr])[], exceptKey?: SqlExpr): SelectNode {
  const where = and(
    company === undefined ? undefined : eq(col(alias, HIDDEN_COLUMNS.company), company),
    ...conditions.map(([c, v]) => eq(col(alias, c), v)),
    exceptKey === undefined ? undefined : bin('<>', col(alias, type.key.name), exceptKey),
  );
  return select({ columns: [{ expr: constant(1), alias: 'one' }], from: { kind: 'table', table: type.table, alias }, where, limit: constant(1) });
}

/** true when a row matches; `companyId` undefined searches every company (keys are global). */
async function exists(svc: StoreContext, tx: Statements, type: EntityType, companyId: string | undefined, conditions: readonly (readonly [string, StoredValue])[], exceptKey?: StoredValue): Promise<boolean> {
  const scoped = companyId !== undefined && type.scope === 'company';
  const except = exceptKey !== undefined;
  const values: StoredValue[] = [...(scoped ? [companyId] : []), ...conditions.map(([, v]) => v), ...(except ? [exceptKey] : [])];
  const shape = `exists ${scoped ? 'company ' : ''}${conditions.map(([c]) => c).join(',')}${except ? ' except' : ''}`;
  const q = statementsOf(type, svc.engine.dialect).compiled(shape, values, (v) => {
    const at = scoped ? 1 : 0;
    return matchingRow(
      type,
      'x',
      scoped ? param(v[0] ?? null) : undefined,
      conditions.map(([c], i) => [c, param(v[at + i] ?? null)] as const),
      except ? param(v[at + conditions.length] ?? null) : undefined,
    );
  });
  return (await tx.get(q)) !== undefined;
}

/** A value (or set of values) that must not be taken by another row: within the row's company, or across companies. */
export interface UniqueCheck {
  readonly perCompany: boolean;
  readonly values: readonly (readonly [string, StoredValue])[];
}

/** The unique values and alternate keys of a row that `changed` touches and that have values (each is looked up). */
export function uniqueChecks(type: EntityType, row: RowValues, changed: ReadonlySet<string>): UniqueCheck[] {
  const out: UniqueCheck[] = [];
  for (const p of type.properties) {
    if (!(p.unique || p === type.key) || !changed.has(p.name)) continue;
    const v = row.get(p.name);
    if (v === undefined || v === null) continue;
    out.push({ perCompany: p !== type.key && type.scope === 'company', values: [[p.name, v]] });
  }
  for (const key of type.alternateKeys) {
    if (!key.some((p) => changed.has(p.name))) continue;
    const values = key.map((p) => [p.name, row.get(p.name) ?? null] as const);
    if (values.some(([, v]) => v === null)) continue;
    out.push({ perCompany: type.scope === 'company', values });
  }
  return out;
}

/** 409 when the key (globally), a unique property or an alternate key (within the company) is taken by another row. */
export async function checkUnique(svc: StoreContext, tx: Statements, type: EntityType, companyId: string | undefined, row: RowValues, changed: ReadonlySet<string>, selfKey?: StoredValue): Promise<void> {
  await runUniqueChecks(svc, tx, type, companyId, uniqueChecks(type, row, changed), selfKey);
}

/** 409 for the first of `checks` whose values another row (not `selfKey`) has. */
export async function runUniqueChecks(svc: StoreContext, tx: Statements, type: EntityType, companyId: string | undefined, checks: readonly UniqueCheck[], selfKey?: StoredValue): Promise<void> {
  for (const check of checks) {
    if (await exists(svc, tx, type, check.perCompany ? companyId : undefined, check.values, selfKey)) {
      const shown = check.values.map(([name, v]) => `${name}='${String(v)}'`).join(', ');
      throw new ConflictError(`The ${type.name} already exists. Identification fields and values: ${shown}.`, 'Internal_EntityWithSameKeyExists', check.values[0]?.[0]);
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

/** A reference a written row makes that must name a row of the referenced type (in the same company, for a company's type). */
export interface ReferenceCheck {
  readonly nav: NavigationProperty;
  /** The referenced type's columns and the values the row gives them. */
  readonly values: readonly (readonly [string, StoredValue])[];
}

/** The references of a row that `changed` touches, have values and are not to `parent` (which needs no lookup). */
export function referenceChecks(type: EntityType, row: RowValues, changed: ReadonlySet<string>, parent?: ParentRow): ReferenceCheck[] {
  const out: ReferenceCheck[] = [];
  for (const nav of type.navigations) {
    if (!nav.checkOnWrite || nav.collection) continue;
    if (!nav.joins.some((j) => changed.has(j.sourceProperty))) continue;
    const values = nav.joins.map((j) => [j.targetProperty, row.get(j.sourceProperty) ?? null] as const);
    if (values.some(([, v]) => v === null || v === '')) continue;
    if (parent !== undefined && nav.target === parent.type && nav.joins.every((j) => row.get(j.sourceProperty) === parent.row[j.targetProperty])) continue;
    out.push({ nav, values });
  }
  return out;
}

/** 400 when a changed reference field names no row of the referenced type in the same company (`parent` needs no lookup). */
export async function checkReferences(svc: StoreContext, tx: Statements, type: EntityType, companyId: string | undefined, row: RowValues, changed: ReadonlySet<string>, parent?: ParentRow): Promise<void> {
  await runReferenceChecks(svc, tx, type, companyId, referenceChecks(type, row, changed, parent));
}

/** 400 for the first of `checks` that names no row. */
export async function runReferenceChecks(svc: StoreContext, tx: Statements, type: EntityType, companyId: string | undefined, checks: readonly ReferenceCheck[]): Promise<void> {
  for (const { nav, values } of checks) {
    if (!(await exists(svc, tx, nav.target, companyId, values))) {
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
