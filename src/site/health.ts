/**
 * `GET /health` and `GET /ready` for load balancers and orchestrators (conventions §9), without
 * credentials: health says the process answers; ready says it can serve, which needs the database
 * to answer a trivial query through the service's own connections (any engine: on PostgreSQL the
 * pool's, bounded by its connect and statement timeouts). With PostgreSQL read replicas it lists
 * each (host, port, state, lag), whatever their state: they never make it fail (conventions §13).
 */
import type { ReplicaStatus, Statements } from '../db/engine.js';
import type { RefusalLog } from '../errors/refusal-log.js';
import type { ODataResponse } from '../core/request.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';

const HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
const UP = JSON.stringify({ status: 'up' });
const READY = { status: 'ready' };
const UNAVAILABLE = { status: 'unavailable', reason: 'The database does not answer; see the service log.' };

/** A body of /ready: `answer`, with the replicas when there are any. */
function readyBody(answer: object, replicas: readonly ReplicaStatus[]): string {
  return JSON.stringify(replicas.length === 0 ? answer : { ...answer, replicas });
}
const READY_QUERY = { sql: 'SELECT 1 AS "ready"', params: [] };

/** 200 while the process runs and its event loop turns. */
export function health(): ODataResponse {
  return { status: 200, headers: HEADERS, body: UP };
}

/**
 * 200 when the database answers, else 503. The cause goes to the log, not to the caller, and as the
 * refusals of requests do (errors/refusal-log.ts): a load balancer probing through an outage would
 * otherwise write it whole several times a second per instance.
 */
export function ready(db: Statements, refusals: Pick<RefusalLog, 'refused'>, replicas: () => readonly ReplicaStatus[] = () => []): MaybePromise<ODataResponse> {
  const unavailable = (e: unknown): ODataResponse => {
    refusals.refused(e, 'GET /ready');
    return { status: 503, headers: { ...HEADERS, 'Retry-After': '5' }, body: readyBody(UNAVAILABLE, replicas()) };
  };
  const answered = (row: Record<string, unknown> | undefined): ODataResponse => {
    // PostgreSQL's 1 is an int4, SQLite's a number; both read as the number 1.
    if (Number(row?.['ready']) !== 1) throw new Error('SELECT 1 did not give 1');
    return { status: 200, headers: HEADERS, body: readyBody(READY, replicas()) };
  };
  try {
    const response = andThen(db.get(READY_QUERY), answered);
    return response instanceof Promise ? response.catch(unavailable) : response;
  } catch (e) {
    return unavailable(e);
  }
}
