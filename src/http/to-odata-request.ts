/**
 * Turns an express request (below the service root) into the core's ODataRequest.
 */
import type { Request } from 'express';
import type { ODataRequest } from '../core/request.js';

/** Builds the core request; `body` was read by the router with the size limit applied. */
export function toODataRequest(req: Request, serviceRoot: string, body: Buffer | undefined, requestId: string): ODataRequest {
  const url = req.originalUrl;
  const q = url.indexOf('?');
  const fullPath = q < 0 ? url : url.slice(0, q);
  const rawQuery = q < 0 ? '' : url.slice(q + 1);
  const path = fullPath.slice(serviceRoot.length);
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  const host = req.headers.host ?? 'localhost';
  return {
    method: req.method.toUpperCase(),
    path,
    rawQuery,
    headers,
    body,
    serviceRootUrl: `${req.protocol}://${host}${serviceRoot}`,
    requestId,
    clientAddress: req.socket.remoteAddress,
  };
}
