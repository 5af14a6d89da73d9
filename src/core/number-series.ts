/**
 * Number series (conventions §5): per company and series code, a counter kept in the model's
 * number-series entity, formatted as prefix + zero-padded counter (`ECN000001`). A number already
 * taken (e.g. given by a client) is skipped.
 */
import { compile } from '../sql/compile.js';
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
  const find = select({
    columns: [{ expr: col('s', 'id'), alias: 'id' }, { expr: col('s', 'prefix'), alias: 'prefix' }, { expr: col('s', 'width'), alias: 'width' }, { expr: col('s', 'lastNumber'), alias: 'lastNumber' }],
    from: { kind: 'table', table: store.table, alias: 's' },
    where: and(companyCondition(store, 's', companyId), eq(col('s', 'code'), param(series))),
  });
  let row = svc.db.get(compile(find, sqliteDialect));
  if (row === undefined) {
    const columns = ['id', 'code', 'description', 'prefix', 'width', 'lastNumber', 'lastModifiedDateTime', HIDDEN_COLUMNS.version];
    const values = [randomUUID(), series, `${series} numbers`, def.prefix, def.width, 0, new Date().toISOString(), svc.nextVersion()];
    if (store.scope === 'company') {
      columns.push(HIDDEN_COLUMNS.company);
      values.push(companyId ?? '');
    }
    svc.db.run(compile({ kind: 'insert', table: store.table, columns, values: values.map((v) => param(v)) }, sqliteDialect));
    row = svc.db.get(compile(find, sqliteDialect));
    if (row === undefined) throw new Error('number series row vanished');
  }
  const prefix = String(row['prefix']);
  const width = Number(row['width']);
  let n = Number(row['lastNumber']);
  let candidate: string;
  for (;;) {
    n++;
    candidate = `${prefix}${String(n).padStart(width, '0')}`;
    const taken = select({
      columns: [{ expr: constant(1), alias: 'one' }],
      from: { kind: 'table', table: type.table, alias: 'x' },
      where: and(companyCondition(type, 'x', companyId), eq(col('x', p.name), param(candidate))),
      limit: constant(1),
    });
    if (svc.db.get(compile(taken, sqliteDialect)) === undefined) break;
  }
  svc.db.run(
    compile(
      { kind: 'update', table: store.table, set: [{ column: 'lastNumber', value: param(n) }, { column: HIDDEN_COLUMNS.version, value: param(svc.nextVersion()) }], where: eq(col(store.table, 'id'), param(String(row['id']))) },
      sqliteDialect,
    ),
  );
  return candidate;
}
