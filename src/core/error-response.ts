/**
 * The OData error response of a value thrown while the service handled a request: the one mapper
 * (errors/to-error-response.ts) with the service's log, its engine's mapping of driver errors and
 * its log of refused requests.
 */
import { toErrorResponse, type ErrorResponse } from '../errors/to-error-response.js';
import type { ServiceContext } from './service-context.js';

export function errorResponse(svc: ServiceContext, e: unknown, requestId: string): ErrorResponse {
  return toErrorResponse(e, requestId, svc.log, svc.engine.mapError, svc.refusals);
}
