/**
 * Turns an HTTP request (below the service root) into the core's ODataRequest.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { ODataRequest } from '../core/request.js';

/** Builds the core request; `body` was read with the size limit applied. */
export function toODataRequest(req: IncomingMessage, serviceRoot: string, body: Buffer | undefined, requestId: string): ODataRequest {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const fullPath = q < 0 ? url : url.slice(0, q);
  const rawQuery = q < 0 ? '' : url.slice(q + 1);
  const path = fullPath.slice(serviceRoot.length);
  // node lower-cases header names and joins repeated headers except the few it keeps as arrays (which
  // a request seldom has: then node's own object serves as it is).
  let headers = req.headers as Record<string, string | undefined>;
  for (const k in req.headers) {
    if (Array.isArray(req.headers[k])) {
      headers = {};
      for (const name in req.headers) {
        const v = req.headers[name];
        headers[name] = Array.isArray(v) ? v.join(', ') : v;
      }
      break;
    }
  }
  const host = req.headers.host ?? 'localhost';
  const protocol = (req.socket as Partial<TLSSocket>).encrypted === true ? 'https' : 'http';
  return {
    method: (req.method ?? 'GET').toUpperCase(),
    path,
    rawQuery,
    headers,
    body,
    serviceRootUrl: `${protocol}://${host}${serviceRoot}`,
    requestId,
    clientAddress: req.socket.remoteAddress,
    turnSnapshot: true,
  };
}
