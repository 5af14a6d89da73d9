/**
 * The HTTP layer, the only code that knows express: it reads the body, builds the ODataRequest, calls
 * the core and writes the ODataResponse. Requests outside the service root get an OData 404 too.
 */
import express, { type Express, type Request, type Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import { randomUUID } from 'node:crypto';
import type { Service } from '../service.js';
import { NotFoundError } from '../errors/odata-error.js';
import { toErrorResponse } from '../errors/to-error-response.js';
import type { ODataResponse } from '../core/request.js';
import { readBody } from './read-body.js';
import { toODataRequest } from './to-odata-request.js';

function send(res: Response, method: string, r: ODataResponse): void {
  res.status(r.status);
  for (const [k, v] of Object.entries(r.headers)) res.setHeader(k, v);
  res.setHeader('OData-Version', '4.0');
  if (r.body === undefined || method === 'HEAD' || r.status === 204) {
    res.end();
    return;
  }
  res.end(r.body);
}

/** Builds the express application serving `service` under its service root. */
export function createExpressApp(service: Service): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', false);
  const root = service.model.service.serviceRoot;
  const log = service.log;

  // Brute force: failed authentications (401) count per client address; past the limit, 429.
  const { windowMs, max } = service.options.authRateLimit;
  app.use(
    rateLimit({
      windowMs,
      limit: max,
      skipSuccessfulRequests: true,
      requestWasSuccessful: (_req, res) => res.statusCode !== 401,
      standardHeaders: 'draft-7',
      legacyHeaders: false,
      handler: (req, res) => {
        const body = { error: { code: 'BadRequest_TooManyRequests', message: 'Too many failed authentication attempts from this address; try again later.' } };
        log.warn({ clientAddress: req.socket.remoteAddress }, 'authentication rate limit reached');
        res.status(429).setHeader('OData-Version', '4.0').setHeader('Content-Type', 'application/json; odata.metadata=minimal').end(JSON.stringify(body));
      },
    }),
  );

  app.use(async (req: Request, res: Response) => {
    const requestId = (typeof req.headers['x-request-id'] === 'string' && req.headers['x-request-id'].length <= 100 ? req.headers['x-request-id'] : undefined) ?? randomUUID();
    const started = process.hrtime.bigint();
    res.setHeader('x-request-id', requestId);
    let response: ODataResponse;
    try {
      const path = req.path;
      if (path !== root && !path.startsWith(`${root}/`)) {
        throw new NotFoundError(`No HTTP resource was found that matches the request URI '${req.originalUrl}'. The service root is ${root}/.`, 'BadRequest_NotFound');
      }
      const body = await readBody(req, service.model.service.maxBodyBytes);
      response = await service.handle(toODataRequest(req, root, body, requestId));
    } catch (e) {
      response = toErrorResponse(e, requestId, log);
    }
    send(res, req.method, response);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    log.info({ requestId, method: req.method, url: req.originalUrl, status: response.status, ms: Math.round(ms * 100) / 100 }, 'request');
  });
  return app;
}
