/**
 * Number series (conventions §5): per company and series code, a counter kept in the model's
 * number-series entity, formatted as prefix + zero-padded counter (`ECN000001`). A number already
 * taken (e.g. given by a client) is skipped.
 */
import { compile, type CompiledQuery } from '../sql/compile.js';
import { statementsOf } from '../sql/statement-cache.js';
import { sqliteDialect } from '../sql/sqlite-dialect.js';
import { and, col, constant, eq, param, select } from '../sql/build.js';
import { HIDDEN_COLUMNS, type EntityType, type Property } from '../edm/model.js';
import { randomUUID } from 'node:crypto';
import { companyCondition } from '../query/plan-read.js';
import type { ServiceContext } from './service-context.js';

/** The next free number of `series` for the company, reserved by advancing the counter. */
export function nextNumber(svc: ServiceContext, type: EntityType, p: Property, series: string, companyId: string | undefined): string {
  const def = svc.model.numberSeries.find((s) => s.code === series);
  const store = svc.model.numberSeriesType;
  if (def === undefined || store === undefined) throw new Error(`number series ${series} is not configured`);
  // The statements run for every numbered insert: compiled once per shape (sql/statement-cache.ts).
  const scoped = store.scope === 'company';
  const find = (): CompiledQuery =>
    statementsOf(store).compiled(`series find${scoped ? ' company' : ''}`, scoped ? [companyId ?? null, series] : [series], (v) =>
      select({
        columns: [{ expr: col('s', 'id'), alias: 'id' }, { expr: col('s', 'prefix'), alias: 'prefix' }, { expr: col('s', 'width'), alias: 'width' }, { expr: col('s', 'lastNumber'), alias: 'lastNumber' }],
        from: { kind: 'table', table: store.table, alias: 's' },
        where: and(companyCondition(store, 's', scoped ? String(v[0]) : undefined), eq(col('s', 'code'), param(v[scoped ? 1 : 0] ?? null))),
      }),
    );
  let row = svc.db.get(find());
  if (row === undefined) {
    const columns = ['id', 'code', 'description', 'prefix', 'width', 'lastNumber', 'lastModifiedDateTime', HIDDEN_COLUMNS.version];
    const values = [randomUUID(), series, `${series} numbers`, def.prefix, def.width, 0, new Date().toISOString(), svc.nextVersion()];
    if (store.scope === 'company') {
      columns.push(HIDDEN_COLUMNS.company);
      values.push(companyId ?? '');
    }
    svc.db.run(compile({ kind: 'insert', table: store.table, columns, values: values.map((v) => param(v)) }, sqliteDialect));
    row = svc.db.get(find());
    if (row === undefined) throw new Error('number series row vanished');
  }
  const prefix = String(row['prefix']);
  const width = Number(row['width']);
  let n = Number(row['lastNumber']);
  let candidate: string;
  for (;;) {
    n++;
    candidate = `${prefix}${String(n).padStart(width, '0')}`;
    const typeScoped = type.scope === 'company';
    const taken = statementsOf(type).compiled(`series taken ${p.name}${typeScoped ? ' company' : ''}`, typeScoped ? [companyId ?? null, candidate] : [candidate], (v) =>
      select({
        columns: [{ expr: constant(1), alias: 'one' }],
        from: { kind: 'table', table: type.table, alias: 'x' },
        where: and(companyCondition(type, 'x', typeScoped ? String(v[0]) : undefined), eq(col('x', p.name), param(v[typeScoped ? 1 : 0] ?? null))),
        limit: constant(1),
      }),
    );
    if (svc.db.get(taken) === undefined) break;
  }
  svc.db.run(
    statementsOf(store).compiled('series advance', [n, svc.nextVersion(), String(row['id'])], (v) => ({
      kind: 'update',
      table: store.table,
      set: [{ column: 'lastNumber', value: param(v[0] ?? null) }, { column: HIDDEN_COLUMNS.version, value: param(v[1] ?? null) }],
      where: eq(col(store.table, 'id'), param(v[2] ?? null)),
    })),
  );
  return candidate;
}
