/**
 * Runs a query string through the real parser, binder, planner and compiler for engChangeNotices of
 * company A in the service's engine's dialect, returning the compiled SQL and parameters, and the rows it selects.
 */
import { parseQueryOptions } from '../../src/uri/parse-options.js';
import { planQuery } from '../../src/query/plan-query.js';
import { planSelect } from '../../src/query/plan-select.js';
import { compile, type CompiledQuery } from '../../src/sql/compile.js';
import { aggregatedSelects, planAggregation } from '../../src/query/plan-apply.js';
import { exprContext } from '../../src/query/plan-query.js';
import type { ApplyCase } from './golden-apply-cases.js';
import type { Service } from '../../src/service.js';
import { ID } from './golden-fixture.js';

/** A fixed clock for now(). */
export const NOW = '2026-06-01T12:00:00.000Z';

/** Compiles `?<query>` for the ECN set of company A, selecting only `number`. */
export function compileQuery(service: Service, query: string, typeName = 'engChangeNotice'): CompiledQuery {
  const type = service.model.entityTypeByName.get(typeName);
  if (type === undefined) throw new Error(typeName);
  const options = parseQueryOptions(query);
  const planned = planQuery({ model: service.model, dialect: service.engine.dialect, type, options, aliases: options.aliases, now: NOW, depth: 0 });
  const select = new Set(planned.read.select ?? []);
  if (planned.read.select === undefined) select.add('number');
  return compile(planSelect({ type, companyId: ID.companyA, conditions: [], ...planned.read, select }), service.engine.dialect);
}

/** Executes a compiled query and returns the selected rows. */
export function run(service: Service, q: CompiledQuery): Record<string, unknown>[] {
  return service.db.all(q);
}

/** Executes a compiled query on any engine and returns the selected rows. */
export async function runOnEngine(service: Service, q: CompiledQuery): Promise<Record<string, unknown>[]> {
  return service.engine.db.all(q);
}

/**
 * Compiles the aggregated read (`$apply`) of a case for company A in the service's engine's dialect:
 * the rows query, its count query, and a function naming a row's columns by their result names.
 */
export function compileAggregated(service: Service, c: ApplyCase): { compiled: CompiledQuery; count: CompiledQuery; named: (r: Record<string, unknown>) => Record<string, unknown> } {
  const type = service.model.entityTypeByName.get(c.typeName);
  if (type === undefined) throw new Error(c.typeName);
  const dialect = service.engine.dialect;
  const plan = planAggregation({ model: service.model, type, options: parseQueryOptions(c.query), ctx: exprContext(dialect, NOW) });
  const { rows, count } = aggregatedSelects(dialect, plan, ID.companyA, [], c.window ?? {});
  const columns = plan.segments[0] ?? [];
  return { compiled: compile(rows, dialect), count: compile(count, dialect), named: (r) => Object.fromEntries(columns.map((col) => [col.name, r[col.column]])) };
}
