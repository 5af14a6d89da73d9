/**
 * Cross-origin requests (the Fetch standard's CORS protocol; conventions §9): off unless the operator
 * allows origins (`serve --cors-origin URL`). A preflight carries no credentials, so it is answered
 * here, before authentication and its failure limit; a request from an allowed origin gets
 * `Access-Control-Allow-Origin` and the headers a browser app needs to read (ETag for If-Match,
 * Location, the OData headers). Credentials travel in `Authorization`, which a browser never adds on
 * its own, so no `Access-Control-Allow-Credentials`. With no origin allowed, a request pays one method
 * comparison.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import vary from 'vary';

/** Methods a browser app may use. */
const ALLOW_METHODS = 'GET, HEAD, POST, PATCH, PUT, DELETE';
/** Request headers the service reads (the CORS-safelisted ones need no mention). */
const ALLOW_HEADERS = 'Authorization, Content-Type, Accept, If-Match, If-None-Match, Prefer, OData-Version, OData-MaxVersion, X-Request-Id';
/** Response headers a script may read besides the safelisted ones. */
const EXPOSE_HEADERS = 'ETag, Location, OData-EntityId, OData-Version, Preference-Applied, Retry-After, X-Request-Id';
/** How long a browser may reuse a preflight's answer, seconds (browsers cap it at 2 hours or less). */
const MAX_AGE = '600';

/** An origin as browsers send it: scheme, host and port only. */
export function isOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === text;
  } catch {
    return false;
  }
}

/** The CORS policy of one service. */
export class Cors {
  private readonly origins: ReadonlySet<string>;

  constructor(origins: readonly string[]) {
    this.origins = new Set(origins);
  }

  /**
   * Applies the policy to a request: answers a preflight (returns true: nothing else to do), or adds
   * the headers of an allowed cross-origin request to `res` (returns false).
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      this.preflight(req, res);
      return true;
    }
    if (this.origins.size === 0) return false;
    vary(res, 'Origin');
    const origin = req.headers.origin;
    if (origin === undefined || !this.origins.has(origin)) return false;
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    return false;
  }

  private preflight(req: IncomingMessage, res: ServerResponse): void {
    const origin = req.headers.origin ?? '';
    res.setHeader('OData-Version', '4.0');
    if (this.origins.size > 0) vary(res, 'Origin');
    if (!this.origins.has(origin)) {
      res.statusCode = 403;
      res.setHeader('Content-Type', 'application/json; odata.metadata=minimal');
      const allowed = this.origins.size === 0 ? 'no origin is allowed' : `the allowed origins are ${[...this.origins].join(', ')}`;
      const message = `Cross-origin requests from '${origin}' are not allowed: ${allowed}. The operator allows an origin with 'ecn-odata serve --cors-origin <origin>'.`;
      res.end(JSON.stringify({ error: { code: 'Authorization_OriginNotAllowed', message } }));
      return;
    }
    res.statusCode = 204;
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Methods', ALLOW_METHODS);
    res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
    res.setHeader('Access-Control-Max-Age', MAX_AGE);
    res.end();
  }
}
