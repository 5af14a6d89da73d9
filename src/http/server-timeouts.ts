/**
 * The HTTP server's connection timeouts, the same for `serve` and for `createExpressApp().listen`.
 *
 * A kept-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS without a request, and the server
 * announces that time to clients (`Keep-Alive: timeout=65`), which stop reusing the connection a second
 * before. Node's own default, 5 s, lost requests: after the event loop had been busy for a while (a
 * long synchronous statement, a loaded machine), Node ran its expired timers before reading sockets
 * and closed connections whose next request had already arrived, unread; the client got no answer
 * ("other side closed"). With 65 s, a connection in use is never near its limit, and a client that
 * idles that long reads the announcement (Node 24 made 65 s its default for the same reason).
 */
import type http from 'node:http';

/** How long a kept-alive connection may idle between requests. */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** Applies the timeouts to a server before it listens. Headers must be allowed longer than the keep-alive time. */
export function applyServerTimeouts(server: http.Server): http.Server {
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  return server;
}
