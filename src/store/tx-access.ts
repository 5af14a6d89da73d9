/**
 * The `ctx.db` reader and `ctx.tx` writer handed to hooks: rows addressed by entity type name and key,
 * always inside the request's company, reads through the planner (computed fields included) and
 * writes through the write session (checks, stamps, version, the target type's own hooks).
 */
import { compile } from '../sql/compile.js';
import type { DbRow } from '../db/engine.js';
import type { EntityType } from '../edm/model.js';
import type { StoredValue } from '../edm/values.js';
import { chooseFrom } from '../edm/suggest-name.js';
import { planSelect } from '../query/plan-select.js';
import { readRow, recordNotFound } from './resolve-path.js';
import type { StoreContext } from './store-context.js';
import type { Statements } from '../db/engine.js';
import type { Row, RowChanges, TxReader, TxWriter } from '../hooks/types.js';
import type { WriteSession } from './write-session.js';

/** The properties of `type` present in a row being written (drops hidden columns such as the row version). */
export function rowOfValues(type: EntityType, values: ReadonlyMap<string, unknown>): Row {
  const out: Record<string, unknown> = {};
  for (const p of type.properties) if (values.has(p.name)) out[p.name] = values.get(p.name);
  return out;
}

/** The properties of `type` present in `source` (drops hidden columns such as the row version). */
export function rowOf(type: EntityType, source: Readonly<Record<string, unknown>>): Row {
  const out: Record<string, unknown> = {};
  for (const p of type.properties) if (p.name in source) out[p.name] = source[p.name];
  return out;
}

function typeNamed(svc: StoreContext, name: string): EntityType {
  const type = svc.model.entityTypeByName.get(name);
  if (type === undefined) throw new Error(`A rule named the entity type '${name}', which the model does not have; ${chooseFrom(name, [...svc.model.entityTypeByName.keys()])}.`);
  return type;
}

// Rules are code: a misspelt property would otherwise become invalid SQL or a silently ignored value.
function storedValues(type: EntityType, values: RowChanges, what: string): Map<string, StoredValue> {
  const out = new Map<string, StoredValue>();
  for (const [name, value] of Object.entries(values)) {
    const p = type.propertyByName.get(name);
    if (p === undefined || p.storage.kind === 'computed') {
      const columns = type.properties.filter((x) => x.storage.kind !== 'computed').map((x) => x.name);
      throw new Error(`A rule ${what} ${type.name}.${name}, which is not a stored property; ${chooseFrom(name, columns)}.`);
    }
    out.set(name, value);
  }
  return out;
}

async function load(svc: StoreContext, tx: Statements, type: EntityType, companyId: string | undefined, key: StoredValue): Promise<DbRow | undefined> {
  return readRow(svc, tx, type, companyId, [{ property: type.key.name, value: key }]);
}

/**
 * Hands a hook's call to the session, which waits for it before the hook counts as done: a rule that
 * forgets `await` still has its read or write finish inside the transaction, and its failure fails the
 * write instead of becoming an unhandled rejection after COMMIT.
 */
export type Track = <T>(work: () => Promise<T>) => Promise<T>;

/** Reads for hooks in the write transaction `tx`, within one company. */
export function txReader(svc: StoreContext, tx: Statements, companyId: string | undefined, track: Track): TxReader {
  return {
    get: <T extends Row = Row>(entityType: string, key: StoredValue): Promise<T | undefined> =>
      track(async () => {
        const type = typeNamed(svc, entityType);
        const row = await load(svc, tx, type, companyId, key);
        return row === undefined ? undefined : (rowOf(type, row) as T);
      }),
    find: <T extends Row = Row>(entityType: string, where: RowChanges): Promise<T[]> =>
      track(async () => {
        const type = typeNamed(svc, entityType);
        const conditions = [...storedValues(type, where, 'filtered on')].map(([property, value]) => ({ property, value }));
        return (await tx.all(compile(planSelect({ type, companyId, conditions }), svc.engine.dialect))).map((r) => rowOf(type, r) as T);
      }),
  };
}

/** Writes for hooks, through the session's write path. */
export function txWriter(session: WriteSession, track: Track): TxWriter {
  const { svc, tx } = session;
  const companyId = session.identity.companyId;
  return {
    create: <T extends Row = Row>(entityType: string, values: RowChanges): Promise<T> =>
      track(async () => {
        const type = typeNamed(svc, entityType);
        return rowOf(type, await session.create(type, storedValues(type, values, 'set'))) as T;
      }),
    update: <T extends Row = Row>(entityType: string, key: StoredValue, changes: RowChanges): Promise<T> =>
      track(async () => {
        const type = typeNamed(svc, entityType);
        const before = await load(svc, tx, type, companyId, key);
        if (before === undefined) throw recordNotFound(type, [{ property: type.key.name, value: key }]);
        return rowOf(type, await session.update(type, before, storedValues(type, changes, 'set'))) as T;
      }),
    delete: (entityType: string, key: StoredValue): Promise<boolean> =>
      track(async () => {
        const type = typeNamed(svc, entityType);
        const before = await load(svc, tx, type, companyId, key);
        if (before === undefined) return false;
        await session.delete(type, before);
        return true;
      }),
  };
}
