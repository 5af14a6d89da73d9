/**
 * The one place that turns any thrown value into an OData error response (JSON Format §21,
 * conventions §3). Known errors keep their status and code; a database engine's errors become what
 * the engine says they stand for (db/engine.ts mapError: a constraint violation that slipped past the
 * checks is a 409); anything else is a 500 whose message names the correlation id, with the details
 * only in the log. 503s are logged per cause, not per request (refusal-log.ts).
 */
import type { Logger } from 'pino';
import { ODataError } from './odata-error.js';
import type { RefusalLog } from './refusal-log.js';

/** An error response ready to send. */
export interface ErrorResponse {
  readonly status: number;
  readonly headers: Record<string, string | readonly string[]>;
  readonly body: string;
}

/**
 * Maps a thrown value to an OData error response; logs 5xx with the correlation id, 503s through
 * `refusals` when given (the service's, throttled per cause). `driverError` is the engine's mapping.
 */
export function toErrorResponse(e: unknown, correlationId: string, log: Logger, driverError?: (e: unknown) => ODataError | undefined, refusals?: RefusalLog): ErrorResponse {
  const known = e instanceof ODataError ? e : driverError?.(e);
  if (known !== undefined) {
    const error: Record<string, unknown> = { code: known.code, message: known.message };
    if (known.target !== undefined) error['target'] = known.target;
    if (known.details !== undefined && known.details.length > 0) error['details'] = known.details;
    if (known.status === 503 && refusals !== undefined) refusals.refused(e, correlationId);
    else if (known.status >= 500) log.error({ err: e, correlationId }, 'request failed');
    return { status: known.status, headers: { 'Content-Type': 'application/json; odata.metadata=minimal', ...(known.headers ?? {}) }, body: JSON.stringify({ error }) };
  }
  log.error({ err: e, correlationId }, 'unexpected error');
  const body = {
    error: {
      code: 'Internal_ServerError',
      message: `An unexpected error occurred on the server. CorrelationId: ${correlationId}.`,
    },
  };
  return { status: 500, headers: { 'Content-Type': 'application/json; odata.metadata=minimal' }, body: JSON.stringify(body) };
}
