/**
 * The one place that turns any thrown value into an OData error response (JSON Format §21,
 * conventions §3). Known errors keep their status and code; SQLite constraint violations that slipped
 * past the checks become 409; anything else is a 500 whose message names the correlation id, with the
 * details only in the log.
 */
import type { Logger } from 'pino';
import { ODataError } from './odata-error.js';

/** An error response ready to send. */
export interface ErrorResponse {
  readonly status: number;
  readonly headers: Record<string, string | readonly string[]>;
  readonly body: string;
}

function sqliteConstraint(e: unknown): ODataError | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_CONSTRAINT')) return undefined;
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new ODataError(409, 'Internal_InvalidTableRelation', 'The change conflicts with related records (a reference would point to a record that does not exist, or a referenced record is still in use).');
  }
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new ODataError(409, 'Internal_EntityWithSameKeyExists', 'A record with the same key or unique value already exists.');
  }
  return undefined;
}

/** Maps a thrown value to an OData error response; logs 5xx with the correlation id. */
export function toErrorResponse(e: unknown, correlationId: string, log: Logger): ErrorResponse {
  const known = e instanceof ODataError ? e : sqliteConstraint(e);
  if (known !== undefined) {
    const error: Record<string, unknown> = { code: known.code, message: known.message };
    if (known.target !== undefined) error['target'] = known.target;
    if (known.details !== undefined && known.details.length > 0) error['details'] = known.details;
    if (known.status >= 500) log.error({ err: e, correlationId }, 'request failed');
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
