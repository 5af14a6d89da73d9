/**
 * Cross-origin requests (the Fetch standard's CORS protocol; conventions §9): off unless the operator
 * allows origins (`serve --cors-origin URL`). A preflight carries no credentials, so it is answered
 * here, before authentication and its failure limit; a request from an allowed origin gets
 * `Access-Control-Allow-Origin` and the headers a browser app needs to read (ETag for If-Match,
 * Location, the OData headers). Credentials travel in `Authorization`, which a browser never adds on
 * its own, so no `Access-Control-Allow-Credentials`. Basic credentials are different: browsers keep
 * them, so a change sent with them from another site's page is refused (crossSiteBasic). With no
 * origin allowed, a GET pays three method comparisons.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import vary from 'vary';

/** Methods a browser app may use. */
const ALLOW_METHODS = 'GET, HEAD, POST, PATCH, PUT, DELETE';
/** Request headers the service reads (the CORS-safelisted ones need no mention). */
const ALLOW_HEADERS = 'Authorization, Content-Type, Accept, If-Match, If-None-Match, Prefer, OData-Version, OData-MaxVersion, X-Request-Id, Data-Access-Intent';
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

  /** true when `handle` would neither answer the request nor add anything to its response: a GET or HEAD with no origin allowed. */
  inert(req: IncomingMessage): boolean {
    return this.origins.size === 0 && (req.method === 'GET' || req.method === 'HEAD');
  }

  /**
   * Applies the policy to a request: answers a preflight or refuses a cross-site write with Basic
   * credentials (returns true: nothing else to do), or adds the headers of an allowed cross-origin
   * request to `res` (returns false).
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      this.preflight(req, res);
      return true;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD' && this.crossSiteBasic(req)) {
      const message = `A change with Basic credentials from a page of another site (origin '${req.headers.origin ?? 'unknown'}') is refused: browsers send Basic credentials they remember on their own, so the page may not be the user's. Send the token as Authorization: Bearer, or ask the operator to allow the origin ('ecn-odata serve --cors-origin').`;
      refuse(res, message);
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
      const allowed = this.origins.size === 0 ? 'no origin is allowed' : `the allowed origins are ${[...this.origins].join(', ')}`;
      refuse(res, `Cross-origin requests from '${origin}' are not allowed: ${allowed}. The operator allows an origin with 'ecn-odata serve --cors-origin <origin>'.`);
      return;
    }
    res.statusCode = 204;
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Methods', ALLOW_METHODS);
    res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
    res.setHeader('Access-Control-Max-Age', MAX_AGE);
    res.end();
  }

  /**
   * A request with Basic credentials that a browser sent for a page of another site that is not an
   * allowed origin. A browser that once asked its user for Basic credentials (the 401 challenge
   * names Basic) adds them to every later request to the service, a form POST from any site
   * included (cross-site request forgery); a script of a foreign origin cannot set Authorization
   * itself, since its preflight is refused. Browsers say where a request comes from in
   * Sec-Fetch-Site and Origin; Excel, Power BI and other non-browser clients send neither.
   */
  private crossSiteBasic(req: IncomingMessage): boolean {
    const authorization = req.headers.authorization;
    if (authorization === undefined || !BASIC.test(authorization)) return false;
    const site = req.headers['sec-fetch-site'];
    if (site === 'same-origin' || site === 'none') return false;
    const origin = req.headers.origin;
    if (origin === undefined) return site === 'cross-site' || site === 'same-site';
    if (this.origins.has(origin)) return false;
    return origin !== `http://${req.headers.host ?? ''}` && origin !== `https://${req.headers.host ?? ''}`;
  }
}

/** `Authorization: Basic ...` */
const BASIC = /^\s*basic\s/i;

/** Answers 403 with an OData error body. */
function refuse(res: ServerResponse, message: string): void {
  res.statusCode = 403;
  res.setHeader('Content-Type', 'application/json; odata.metadata=minimal');
  res.end(JSON.stringify({ error: { code: 'Authorization_OriginNotAllowed', message } }));
}
