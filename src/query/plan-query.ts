/**
 * Turns the request's query options into the parts of a read plan: selection, filter, order, paging.
 * This first version handles $select, $top, $skip and $count; $filter, $orderby, $expand and server-driven
 * paging arrive with the query translator.
 */
import type { EntityType } from '../edm/model.js';
import { UriSemanticError, NotImplementedError } from '../errors/odata-error.js';
import type { OperationContext } from '../core/operation-context.js';
import type { ReadPlanInput } from './plan-read.js';

/** The query-option part of a read. */
export interface PlannedQuery {
  readonly read: Pick<ReadPlanInput, 'select' | 'where' | 'orderBy' | 'limit' | 'offset'>;
  /** `$select` names in request order (for the context URL), undefined when absent or `*`. */
  readonly selectList?: readonly string[];
  readonly count: boolean;
}

/** Plans the query options of a read of `type`. */
export function planQuery(ctx: OperationContext, type: EntityType): PlannedQuery {
  const o = ctx.options;
  let select: Set<string> | undefined;
  let selectList: string[] | undefined;
  if (o.select !== undefined && !o.select.some((s) => s.kind === 'star')) {
    select = new Set();
    selectList = [];
    for (const item of o.select) {
      if (item.kind !== 'path' || item.segments.length !== 1 || item.segments[0]?.kind !== 'name') {
        throw new NotImplementedError('Only property names are supported in $select.');
      }
      const name = item.segments[0].name;
      if (!type.propertyByName.has(name)) {
        throw new UriSemanticError(`Could not find a property named '${name}' on type '${type.qualifiedName}'.`, '$select');
      }
      select.add(name);
      selectList.push(name);
    }
  }
  if (o.filter !== undefined || o.orderby !== undefined || o.expand !== undefined) {
    throw new NotImplementedError('$filter, $orderby and $expand are not supported yet.');
  }
  return { read: { select, limit: o.top, offset: o.skip }, selectList, count: o.count === true };
}
