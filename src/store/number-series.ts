/**
 * Number series (conventions §5): per company and series code, a counter kept in the model's
 * number-series entity, formatted as prefix + zero-padded counter (`ECN000001`). A number already
 * taken (e.g. given by a client) is skipped.
 */
import { compile, type CompiledQuery } from '../sql/compile.js';
import { statementsOf } from '../sql/statement-cache.js';
import { and, bin, col, constant, eq, param, select } from '../sql/build.js';
import type { SqlExpr } from '../sql/nodes.js';
import { HIDDEN_COLUMNS, type EntityType, type NumberSeriesDefinition, type Property } from '../edm/model.js';
import { randomUUID } from 'node:crypto';
import { companyCondition } from '../query/plan-select.js';
import type { StoreContext } from './store-context.js';
import type { Statements } from '../db/engine.js';

/** A series counter as read from the number-series row. */
interface Counter {
  readonly id: string;
  readonly prefix: string;
  readonly width: number;
  last: number;
  dirty: boolean;
}

/**
 * The counters one write session draws numbers from: each series row is read once and written back
 * once (`flush`, before the session's COMMIT) instead of a read and an update per numbered row. Valid
 * because the session's writes run in one transaction, where no other writer can move the counter.
 */
export class NumberReservations {
  private readonly counters = new Map<string, Counter>();

  /** The counter of a series in a company, read (and locked, where the engine locks rows) on first use. */
  async counter(svc: StoreContext, tx: Statements, series: string, companyId: string | undefined): Promise<Counter> {
    const key = `${companyId ?? ''}\u0000${series}`;
    let counter = this.counters.get(key);
    if (counter === undefined) {
      counter = { ...(await readCounter(svc, tx, series, companyId)), dirty: false };
      this.counters.set(key, counter);
    }
    return counter;
  }

  /** Writes the advanced counters back; call inside the session's transaction, after its last write. */
  async flush(svc: StoreContext, tx: Statements): Promise<void> {
    for (const counter of this.counters.values()) {
      if (!counter.dirty) continue;
      await writeCounter(svc, tx, counter.id, counter.last);
      counter.dirty = false;
    }
  }
}

function seriesStore(svc: StoreContext, series: string): { def: NumberSeriesDefinition; store: EntityType } {
  const def = svc.model.numberSeries.find((s) => s.code === series);
  const store = svc.model.numberSeriesType;
  if (def === undefined || store === undefined) throw new Error(`number series ${series} is not configured`);
  return { def, store };
}

/**
 * The series row of a company (created at 0 when missing), locked for the rest of the transaction
 * where the engine locks rows (PostgreSQL: FOR UPDATE), so concurrent writers take numbers in turn.
 */
async function readCounter(svc: StoreContext, tx: Statements, series: string, companyId: string | undefined): Promise<Omit<Counter, 'dirty'>> {
  const { def, store } = seriesStore(svc, series);
  // The statements run for every numbered insert: compiled once per shape (sql/statement-cache.ts).
  const scoped = store.scope === 'company';
  const find = (): CompiledQuery =>
    statementsOf(store, svc.engine.dialect).compiled(`series find${scoped ? ' company' : ''}`, scoped ? [companyId ?? null, series] : [series], (v) =>
      select({
        columns: [{ expr: col('s', 'id'), alias: 'id' }, { expr: col('s', 'prefix'), alias: 'prefix' }, { expr: col('s', 'width'), alias: 'width' }, { expr: col('s', 'lastNumber'), alias: 'lastNumber' }],
        from: { kind: 'table', table: store.table, alias: 's' },
        where: and(companyCondition(store, 's', scoped ? String(v[0]) : undefined), eq(col('s', 'code'), param(v[scoped ? 1 : 0] ?? null))),
        lockForUpdate: true,
      }),
    );
  let row = await tx.get(find());
  if (row === undefined) {
    const columns = ['id', 'code', 'description', 'prefix', 'width', 'lastNumber', 'lastModifiedDateTime', HIDDEN_COLUMNS.version];
    const values = [randomUUID(), series, `${series} numbers`, def.prefix, def.width, 0, new Date().toISOString(), svc.nextVersion()];
    if (store.scope === 'company') {
      columns.push(HIDDEN_COLUMNS.company);
      values.push(companyId ?? '');
    }
    await tx.run(compile({ kind: 'insert', table: store.table, columns, values: values.map((v) => param(v)) }, svc.engine.dialect));
    row = await tx.get(find());
    if (row === undefined) throw new Error('number series row vanished');
  }
  return { id: String(row['id']), prefix: String(row['prefix']), width: Number(row['width']), last: Number(row['lastNumber']) };
}

/** `CASE WHEN stored < clock THEN clock ELSE stored + 1 END` */
function versionAfter(stored: SqlExpr, clock: SqlExpr): SqlExpr {
  return { kind: 'case', whens: [{ when: bin('<', stored, clock), then: clock }], otherwise: bin('+', stored, constant(1)) };
}

async function writeCounter(svc: StoreContext, tx: Statements, id: string, last: number): Promise<void> {
  const store = svc.model.numberSeriesType;
  if (store === undefined) throw new Error('no number series type');
  await tx.run(
    statementsOf(store, svc.engine.dialect).compiled('series advance', [last, svc.nextVersion(), id], (v) => ({
      kind: 'update',
      table: store.table,
      // The clock's version, or one past the stored one when another instance's clock is ahead (see nextRowVersion).
      set: [{ column: 'lastNumber', value: param(v[0] ?? null) }, { column: HIDDEN_COLUMNS.version, value: versionAfter(col(store.table, HIDDEN_COLUMNS.version), param(v[1] ?? null)) }],
      where: eq(col(store.table, 'id'), param(v[2] ?? null)),
    })),
  );
}

/**
 * The next free number of `series` for the company, reserved by advancing the counter: in
 * `reservations` (written back at their flush) when given, else in the database at once.
 */
export async function nextNumber(svc: StoreContext, tx: Statements, type: EntityType, p: Property, series: string, companyId: string | undefined, reservations?: NumberReservations): Promise<string> {
  const counter = reservations === undefined ? { ...(await readCounter(svc, tx, series, companyId)), dirty: false } : await reservations.counter(svc, tx, series, companyId);
  let n = counter.last;
  let candidate: string;
  for (;;) {
    n++;
    candidate = `${counter.prefix}${String(n).padStart(counter.width, '0')}`;
    const typeScoped = type.scope === 'company';
    const taken = statementsOf(type, svc.engine.dialect).compiled(`series taken ${p.name}${typeScoped ? ' company' : ''}`, typeScoped ? [companyId ?? null, candidate] : [candidate], (v) =>
      select({
        columns: [{ expr: constant(1), alias: 'one' }],
        from: { kind: 'table', table: type.table, alias: 'x' },
        where: and(companyCondition(type, 'x', typeScoped ? String(v[0]) : undefined), eq(col('x', p.name), param(v[typeScoped ? 1 : 0] ?? null))),
        limit: constant(1),
      }),
    );
    if ((await tx.get(taken)) === undefined) break;
  }
  counter.last = n;
  if (reservations === undefined) await writeCounter(svc, tx, counter.id, n);
  else counter.dirty = true;
  return candidate;
}
