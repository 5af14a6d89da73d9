/**
 * The stop of a server on SIGTERM or SIGINT, as a rolling restart behind a load balancer needs it: no
 * new connection is accepted, idle keep-alive connections close at once, each request in progress is
 * answered (with `Connection: close`, so that its client sends the next one elsewhere), and only then
 * may the service close its database. Before, the database closed under the requests in progress:
 * they answered 500 ("Cannot use a pool after calling end on the pool") or lost their connection.
 * What is still running after the grace period (longer than a request's deadline) is cut off.
 */
import type { Server, ServerResponse } from 'node:http';
import type { RequestListener } from './express-app.js';

/** Tracks a server's responses in progress and stops it gracefully (see the file comment). */
export class GracefulStop {
  private readonly open = new Set<ServerResponse>();
  private stopping = false;
  private drained: (() => void) | undefined;

  /** `listener`, with its responses in progress counted; once stopping, each says `Connection: close`. */
  track(listener: RequestListener): RequestListener {
    // One listener for every response (a response closes once): no closure or once-wrapper per request.
    const open = this.open;
    const closed = (res: ServerResponse): void => {
      open.delete(res);
      if (open.size === 0) this.drained?.();
    };
    function onClose(this: ServerResponse): void {
      closed(this);
    }
    return (req, res) => {
      open.add(res);
      if (this.stopping) res.setHeader('Connection', 'close');
      res.on('close', onClose);
      listener(req, res);
    };
  }

  /** Stops `server`; resolves once no response is in progress, or after `graceMs` with the rest cut off. */
  stop(server: Server, graceMs: number): Promise<void> {
    this.stopping = true;
    for (const res of this.open) if (!res.headersSent) res.setHeader('Connection', 'close');
    server.close();
    server.closeIdleConnections();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.drained = undefined;
        server.closeAllConnections();
        resolve();
      };
      const timer = setTimeout(done, graceMs);
      if (this.open.size === 0) done();
      else this.drained = done;
    });
  }
}
