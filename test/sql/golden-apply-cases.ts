/**
 * The `$apply` queries of the golden tests, by name: golden-apply.test.ts checks each one's exact
 * SQLite SQL and its rows against an oracle; golden-postgres.test.ts runs each on PostgreSQL and
 * expects the rows SQLite gives.
 */
import type { TokenValue } from '../../src/query/skiptoken.js';

/** A query string on an entity type of company A, and the page window (LIMIT, keyset token). */
export interface ApplyCase {
  readonly query: string;
  readonly typeName: string;
  readonly window?: { readonly limit?: number; readonly after?: TokenValue[] };
}

const ecn = (query: string, window?: ApplyCase['window']): ApplyCase => ({ query, typeName: 'engChangeNotice', ...(window === undefined ? {} : { window }) });
const line = (query: string): ApplyCase => ({ query, typeName: 'engChangeNoticeBOMLine' });

export const APPLY = {
  countByStatus: ecn('$apply=groupby((status),aggregate($count%20as%20n))'),
  linesByEcnStatus: line('$apply=groupby((engChangeNotice/status),aggregate(quantityPer%20with%20sum%20as%20total,newQuantityPer%20with%20sum%20as%20newTotal,$count%20as%20n))'),
  byReasonDescription: ecn('$apply=groupby((changeReason/description),aggregate($count%20as%20n))'),
  filterThenAggregate: ecn(
    "$apply=filter(status%20in%20('New','Approved'))/aggregate(sourceSequence%20with%20sum%20as%20total,sourceSequence%20with%20average%20as%20avg,sourceSequence%20with%20min%20as%20lo,sourceSequence%20with%20max%20as%20hi,drawingTypeCode%20with%20countdistinct%20as%20types)",
  ),
  filterOnAggregates: ecn('$apply=groupby((status,changeReasonCode),aggregate($count%20as%20n))/filter(n%20gt%201)&$orderby=n%20desc'),
  twoStages: ecn('$apply=groupby((status,sourceType),aggregate($count%20as%20n))/groupby((status),aggregate(n%20with%20max%20as%20most))'),
  nextPage: ecn('$apply=groupby((status),aggregate($count%20as%20n))', { limit: 2, after: ['Closed'] }),
  nextPageAfterNull: ecn('$apply=groupby((changeReasonCode),aggregate($count%20as%20n))', { limit: 10, after: [null] }),
  ecnTotals: ecn('$apply=aggregate($count%20as%20n,sourceSequence%20with%20max%20as%20hi)'),
  lineTotals: line('$apply=aggregate(quantityPer%20with%20sum%20as%20total,$count%20as%20n)'),
  orderbyTop: ecn('$apply=groupby((status),aggregate($count%20as%20n))/orderby(n%20desc)/top(2)'),
  concat: ecn('$apply=groupby((status),aggregate($count%20as%20n))/concat(aggregate($count%20as%20groups),top(1))'),
  statusFiltered: ecn("$apply=filter(status%20ne%20'Closed'%20and%20changeReason/description%20ne%20null)/groupby((status),aggregate($count%20as%20n,$count%20as%20again))"),
  statusOnly: ecn('$apply=groupby((status))'),
  bySourceType: ecn('$apply=groupby((sourceType),aggregate($count%20as%20n))'),
  statusSum: ecn('$apply=groupby((status),aggregate($count%20as%20n,sourceSequence%20with%20sum%20as%20s))'),
  byReason: ecn('$apply=groupby((changeReasonDescription),aggregate($count%20as%20n))'),
} as const satisfies Record<string, ApplyCase>;
