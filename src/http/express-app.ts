/**
 * The HTTP layer, the only code that knows the server library: it reads the body, builds the
 * ODataRequest, calls the core and writes the ODataResponse (compressed when asked: compress.ts).
 * Paths outside the service root are the site's (site/site.ts: index, docs, health) or an OData 404;
 * CORS and preflights are cors.ts's. (Failed authentications are limited in the core: auth/failed-authentications.ts.)
 *
 * The work is one node:http request listener that uses only node's request and response. The express
 * app is its public face (`createExpressApp(...).listen`, supertest) and routes everything to it; the
 * server `listen` starts calls the listener directly, because express's router and its request and
 * response decoration added about 50 µs to every request and nothing it does is needed here.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { Service } from '../service.js';
import { NotFoundError } from '../errors/odata-error.js';
import { answerError } from '../core/answer-error.js';
import type { ODataResponse } from '../core/request.js';
import type { MaybePromise } from '../util/maybe-promise.js';
import { compressionApplies, endNegotiated } from './compress.js';
import { Cors } from './cors.js';
import { Site } from '../site/site.js';
import { hasBody, readBody } from './read-body.js';
import { applyServerTimeouts } from './server-timeouts.js';
import { toODataRequest } from './to-odata-request.js';

/** A node:http request listener. */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Writes a response; its body compressed when the request asks for it and compression applies
 * (compress.ts). A plain response with a body goes out through one `writeHead` with its header fields as
 * a list, which node takes as they are; setting them one by one instead (setHeader validates and
 * records each) and letting `end` add the rest was a cost on every request.
 */
function send(req: IncomingMessage, res: ServerResponse, r: ODataResponse, requestId: string, log: Logger): void {
  const body = r.body;
  if (body === undefined || req.method === 'HEAD' || r.status === 204) {
    setHeaders(res, r, requestId);
    res.end();
    return;
  }
  const acceptEncoding = req.headers['accept-encoding'];
  if (acceptEncoding !== undefined && compressionApplies(r.headers['Content-Type'], body)) {
    setHeaders(res, r, requestId);
    endNegotiated(res, body, acceptEncoding, (e) => log.warn({ err: e }, 'compressed response failed'));
    return;
  }
  // Fields set before (CORS) stay: node merges the list into them.
  const fields: (string | readonly string[])[] = res.hasHeader('x-request-id') ? [] : ['x-request-id', requestId];
  for (const k in r.headers) fields.push(k, r.headers[k] as string | readonly string[]);
  if (r.headers['OData-Version'] === undefined) fields.push('OData-Version', '4.0');
  // A large text goes out as its UTF-8 bytes: node joins its head to a text body (the body copied once
  // more) and measured the text's UTF-8 length again to write it.
  const data = typeof body === 'string' && body.length > LARGE_TEXT ? Buffer.from(body) : body;
  fields.push('Content-Length', String(typeof data === 'string' ? Buffer.byteLength(data) : data.length));
  res.writeHead(r.status, fields as string[]);
  res.end(data);
}

/** Characters from which a text body is sent as bytes (see send). */
const LARGE_TEXT = 16_384;

/** Sets the response's header fields one by one (the paths that let node or zlib finish the head). */
function setHeaders(res: ServerResponse, r: ODataResponse, requestId: string): void {
  res.statusCode = r.status;
  if (!res.hasHeader('x-request-id')) res.setHeader('x-request-id', requestId);
  for (const k in r.headers) res.setHeader(k, r.headers[k] as string | readonly string[]);
  if (r.headers['OData-Version'] === undefined) res.setHeader('OData-Version', '4.0');
}

/** The request listener serving `service` under its service root. */
export function createRequestListener(service: Service): RequestListener {
  const root = service.model.service.serviceRoot;
  const log = service.log;
  const maxBody = service.model.service.maxBodyBytes;
  const cors = new Cors(service.options.corsOrigins);
  const site = new Site(service);

  /** The response to a request below the site or the service root: a promise only when it has to wait (a body, a write, a JWT). */
  const respond = (req: IncomingMessage, requestId: string): MaybePromise<ODataResponse> => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path !== root && !path.startsWith(`${root}/`)) {
      const page = site.handle(req.method ?? 'GET', path);
      if (page === undefined) throw new NotFoundError(`No HTTP resource was found that matches the request URI '${url}'. The service root is ${root}/.`, 'BadRequest_NotFound');
      return page;
    }
    if (hasBody(req)) return readBody(req, maxBody).then((body) => service.handle(toODataRequest(req, root, body, requestId)));
    return service.handle(toODataRequest(req, root, undefined, requestId));
  };

  /** Serves a request; returns a promise only when it has to wait (a read answers within the call, with no promise to settle). */
  const serve = (req: IncomingMessage, res: ServerResponse): Promise<void> | undefined => {
    const header = req.headers['x-request-id'];
    const requestId = typeof header === 'string' && header.length <= 100 ? header : randomUUID();
    const started = log.isLevelEnabled('info') ? process.hrtime.bigint() : 0n;
    if (!cors.inert(req)) {
      // CORS may answer here (a preflight, a refusal) or add fields: the request id goes first.
      res.setHeader('x-request-id', requestId);
      if (cors.handle(req, res)) return undefined;
    }
    const done = (response: ODataResponse): void => {
      send(req, res, response, requestId, log);
      if (log.isLevelEnabled('info')) {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        log.info({ requestId, method: req.method, url: req.url, status: response.status, ms: Math.round(ms * 100) / 100 }, 'request');
      }
    };
    const failed = (e: unknown): void => done(answerError(service.context, e, requestId));
    let response: MaybePromise<ODataResponse>;
    try {
      response = respond(req, requestId);
    } catch (e) {
      failed(e);
      return undefined;
    }
    if (response instanceof Promise) return response.then(done, failed);
    done(response);
    return undefined;
  };

  return (req, res) => {
    const broken = (e: unknown): void => {
      log.error({ err: e }, 'request failed outside the error mapper');
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    };
    try {
      serve(req, res)?.catch(broken);
    } catch (e) {
      broken(e);
    }
  };
}

/** Builds the express application serving `service` under its service root (see the file comment for `listen`). */
export function createExpressApp(service: Service): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', false);
  const listener = createRequestListener(service);
  app.use((req, res) => listener(req, res));
  // express's own listen, with the listener in place of the app: the callback also hears a listen error.
  const listen = (...args: unknown[]): http.Server => {
    const server = applyServerTimeouts(http.createServer(listener));
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      let called = false;
      const done = (...a: unknown[]): void => {
        if (called) return;
        called = true;
        (last as (...x: unknown[]) => void)(...a);
      };
      args[args.length - 1] = done;
      server.once('error', done);
    }
    return server.listen(...(args as Parameters<http.Server['listen']>));
  };
  app.listen = listen as Express['listen'];
  return app;
}
