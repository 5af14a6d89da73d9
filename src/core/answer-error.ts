/**
 * The service's answer to a value thrown while it handled a request: the one mapper
 * (errors/to-error-response.ts) with the service's log, its engine's mapping of driver errors and
 * its log of refused requests.
 */
import { toErrorResponse, type ErrorResponse } from '../errors/to-error-response.js';
import type { ServiceContext } from './service-context.js';

/** The service's OData error response to a thrown value. */
export function answerError(svc: ServiceContext, e: unknown, requestId: string): ErrorResponse {
  return toErrorResponse(e, requestId, svc.log, svc.engine.mapError, svc.refusals);
}
