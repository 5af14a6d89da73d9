/**
 * Server-driven paging (OData Protocol §11.2.6.7, conventions §4): pages of at most the configured
 * size (or `Prefer: odata.maxpagesize`), continued by an `@odata.nextLink` whose `$skiptoken` holds the
 * last row's sort values and key. The next page starts strictly after that row (keyset pagination):
 * stable while rows are inserted, and as cheap at page 500 as at page 1. A client `$top` at or below
 * the page size gets no nextLink.
 */
import type { EntityType } from '../edm/model.js';
import { and, col, constant, param } from '../sql/build.js';
import type { OrderItem, SelectColumn, SqlExpr } from '../sql/nodes.js';
import type { Dialect } from '../sql/dialect.js';
import type { ReadInput } from './read-input.js';
import type { ReadPlanInput } from './plan-select.js';
import type { PlannedQuery } from './plan-query.js';
import type { QueryScope } from './query-scope.js';
import { equals } from './plan-expression.js';
import { decodeSkiptoken, encodeSkiptoken, type TokenValue } from './skiptoken.js';

/** The paging part of a collection read. */
export interface PagePlan {
  readonly read: Pick<ReadPlanInput, 'where' | 'extraColumns' | 'limit' | 'offset'>;
  readonly preferenceApplied?: string;
  /** The most rows a page holds; the read fetches one more when a next page is possible. */
  readonly size: number;
  /** True when no next page can follow (a `$top` within the page size): the read fetches exactly the rows of the page. */
  readonly final: boolean;
  /**
   * The next link after a page whose last row is `last`, when rows follow it; `value` reads a column of
   * a row by alias; `returned` is the rows the page holds (fewer than its size when the response budget
   * ended it early), so a client `$top` continues with what is left of it.
   */
  next<R>(last: R, value: (row: R, alias: string) => unknown, returned?: number): string | undefined;
  /** Trims the extra row and builds the next link. */
  finish<R>(rows: R[], value: (row: R, alias: string) => unknown): { rows: R[]; nextLink?: string };
}

/** Alias prefix of the sort-value columns (`_sort0`, `_sort1`, ...), which follow the entity columns. */
export const SORT_PREFIX = '_sort';
const SORT_VALUE = (i: number): string => `${SORT_PREFIX}${i}`;

/** `(c1, c2, ..., key)` strictly after `values` in the order given (null-aware: NULL sorts first ascending). */
export function strictlyAfter(d: Dialect, order: readonly OrderItem[], values: readonly TokenValue[]): SqlExpr {
  const alternatives: SqlExpr[] = [];
  for (let i = 0; i < order.length; i++) {
    const o = order[i] as OrderItem;
    const v = values[i] ?? null;
    let beyond: SqlExpr;
    if (o.direction === 'ASC') beyond = v === null ? { kind: 'isNull', operand: o.expr, negated: true } : { kind: 'binary', operator: '>', left: o.expr, right: param(v) };
    else beyond = v === null ? { kind: 'binary', operator: '=', left: constant(1), right: constant(0) } : { kind: 'binary', operator: 'OR', left: { kind: 'binary', operator: '<', left: o.expr, right: param(v) }, right: { kind: 'isNull', operand: o.expr, negated: false } };
    // As `eq` is planned (never under a NOT here): `=` for a value where the dialect prefers it.
    const equalBefore = order.slice(0, i).map((p, j) => equals(d, p.expr, param(values[j] ?? null), false, false));
    alternatives.push(and(...equalBefore, beyond) as SqlExpr);
  }
  return alternatives.reduce((a, b) => ({ kind: 'binary', operator: 'OR', left: a, right: b }));
}

/** Rebuilds the request URL with new paging options (other options kept as the client sent them). */
export function nextLinkUrl(url: ReadInput['url'], token: string, top: number | undefined): string {
  const kept = url.rawQuery
    .split('&')
    .filter((p) => p !== '' && !/^(%24|\$)(skiptoken|skip|top)=/i.test(p));
  if (top !== undefined) kept.push(`$top=${top}`);
  kept.push(`$skiptoken=${token}`);
  return `${url.serviceRootUrl}${url.path}?${kept.join('&')}`;
}

/** Plans the page of a collection read. */
export function planPage(input: ReadInput, type: EntityType, query: PlannedQuery): PagePlan {
  const { size: pageSize, preferenceApplied } = input.page;
  const top = input.options.top;
  const token = input.options.skiptoken;
  const sortCount = query.orderBy.length;
  const orderItems = (scope: QueryScope): OrderItem[] => [...(query.read.orderBy?.(scope) ?? []), { expr: col(scope.alias, type.key.name), direction: 'ASC', notNull: true }];
  const values = token === undefined ? undefined : decodeSkiptoken(token, sortCount + 1);
  const where = (scope: QueryScope): SqlExpr | undefined => and(query.read.where?.(scope), values === undefined ? undefined : strictlyAfter(input.dialect, orderItems(scope), values));
  const extraColumns = (scope: QueryScope): SelectColumn[] => [
    ...(query.read.extraColumns?.(scope) ?? []),
    ...(query.read.orderBy?.(scope) ?? []).map((o, i) => ({ expr: o.expr, alias: SORT_VALUE(i) })),
  ];
  const final = top !== undefined && top <= pageSize;
  const fetch = final ? top : pageSize + 1;
  const next = <R>(last: R, value: (row: R, alias: string) => unknown, returned = pageSize): string | undefined => {
    const remaining = top === undefined ? undefined : top - returned;
    if (remaining !== undefined && remaining <= 0) return undefined;
    const tokenValues: TokenValue[] = [];
    for (let i = 0; i < sortCount; i++) tokenValues.push((value(last, SORT_VALUE(i)) ?? null) as TokenValue);
    tokenValues.push(value(last, type.key.name) as TokenValue);
    return nextLinkUrl(input.url, encodeSkiptoken(tokenValues), remaining);
  };
  return {
    read: { where, extraColumns, limit: fetch, offset: values === undefined ? input.options.skip : undefined },
    preferenceApplied,
    size: pageSize,
    final,
    next,
    finish(rows, value) {
      if (rows.length <= pageSize) return { rows };
      rows.length = pageSize;
      return { rows, nextLink: next(rows[pageSize - 1] as (typeof rows)[number], value) };
    },
  };
}
