/**
 * The limits of a read checked before any SQL runs (STYLE habit 6, AspNetCore's one validator per
 * option): $top, lambda nesting, $orderby length, and the per-parent row caps of expanded collections.
 * Each refusal is a 400 naming the limit and its setting in service.json (conventions §11).
 */
import type { ServiceSettings } from '../edm/model.js';
import { limitSetting } from '../edm/service-limits.js';
import { QueryLimitError } from '../errors/odata-error.js';
import { assertNever } from '../util/assert-never.js';
import type { BoundExpr } from './bound-ast.js';

/** Most $orderby items of one request level. */
export const MAX_ORDERBY_ITEMS = 8;

/**
 * How deep lambdas nest in an expression: `any`/`all` and `$count` over a collection each run a
 * subquery per row of the level outside them, so n rows nested d deep cost n^(d+1).
 */
export function lambdaDepth(e: BoundExpr): number {
  switch (e.kind) {
    case 'literal':
    case 'property':
      return 0;
    case 'compare':
    case 'logical':
    case 'arithmetic':
      return Math.max(lambdaDepth(e.left), lambdaDepth(e.right));
    case 'not':
    case 'negate':
      return lambdaDepth(e.operand);
    case 'in':
      return Math.max(lambdaDepth(e.operand), ...e.items.map(lambdaDepth));
    case 'has':
      return lambdaDepth(e.operand);
    case 'call':
      return e.args.reduce((m, a) => Math.max(m, lambdaDepth(a)), 0);
    case 'lambda':
      return 1 + (e.predicate === undefined ? 0 : lambdaDepth(e.predicate));
    case 'count':
      return 1 + (e.filter === undefined ? 0 : lambdaDepth(e.filter));
    case 'result':
      return 0;
    default:
      return assertNever(e, 'bound expression');
  }
}

/** 400 when `$filter` nests lambdas deeper than `limits.maxLambdaDepth`. */
export function checkLambdaDepth(filter: BoundExpr, settings: Pick<ServiceSettings, 'maxLambdaDepth'>, option: string): void {
  const depth = lambdaDepth(filter);
  if (depth > settings.maxLambdaDepth) {
    throw new QueryLimitError(
      `The ${option} nests any/all/$count ${depth} levels deep; this service allows ${settings.maxLambdaDepth} (${limitSetting('maxLambdaDepth')}). Each level runs once per row of the level outside it.`,
      option,
    );
  }
}

/** 400 when `$top` asks for more than `limits.maxTop`. */
export function checkTop(top: number | undefined, settings: Pick<ServiceSettings, 'maxTop'>, option: string): void {
  if (top !== undefined && top > settings.maxTop) {
    throw new QueryLimitError(`${option} is ${top}; this service allows at most ${settings.maxTop} (${limitSetting('maxTop')}). Follow @odata.nextLink for more.`, option);
  }
}

/** 400 when `$orderby` has more items than MAX_ORDERBY_ITEMS. */
export function checkOrderByLength(items: number, option: string): void {
  if (items > MAX_ORDERBY_ITEMS) throw new QueryLimitError(`${option} takes at most ${MAX_ORDERBY_ITEMS} items.`, option);
}

/**
 * The cap on the rows of one expanded collection under one parent entity: the client's `$top`, else
 * `limits.maxExpandRows`, and never more than the rows left of `limits.maxExpandedRows` once the
 * collections it is nested in are full (`budget`, the rows one parent may still expand to). `limit`
 * names the setting a runtime overflow is reported against, undefined when the client's $top is
 * the cap (then the rows are simply cut at $top, as the client asked).
 */
export interface ExpandCap {
  readonly rows: number;
  readonly limit?: 'maxExpandRows' | 'maxExpandedRows';
}

/** The cap of an expanded collection (see ExpandCap); 400 when no row is left in the budget. */
export function expandCap(top: number | undefined, budget: number, settings: Pick<ServiceSettings, 'maxExpandRows' | 'maxExpandedRows'>, navigation: string): ExpandCap {
  if (budget < 1) {
    throw new QueryLimitError(
      `Expanding '${navigation}' inside the collections around it could give more than ${settings.maxExpandedRows} entities under one entity (${limitSetting('maxExpandedRows')}); put $top inside the outer $expand.`,
      '$expand',
    );
  }
  const byLimit = Math.min(settings.maxExpandRows, budget);
  if (top !== undefined && top <= byLimit) return { rows: top };
  return { rows: byLimit, limit: byLimit === budget && budget < settings.maxExpandRows ? 'maxExpandedRows' : 'maxExpandRows' };
}

/** The message of a runtime overflow of an ExpandCap. */
export function expandCapMessage(navigation: string, parent: string, cap: ExpandCap, settings: Pick<ServiceSettings, 'maxExpandRows' | 'maxExpandedRows'>): string {
  if (cap.limit === 'maxExpandedRows') {
    return (
      `The expanded '${navigation}' has more than ${cap.rows} entities under one ${parent}, the share left of ${settings.maxExpandedRows} expanded entities per entity ` +
      `(${limitSetting('maxExpandedRows')}). Put $top in the $expand, or read '${navigation}' through its own URL and page with $top/$skip.`
    );
  }
  return (
    `The expanded '${navigation}' has more than ${cap.rows} entities under one ${parent} (${limitSetting('maxExpandRows')}). ` +
    `Put $top in the $expand, or read '${navigation}' through its own URL and page with $top/$skip.`
  );
}
