/**
 * The core: an OData request in, an OData response out (Olingo's ODataHandler.process).
 * parse path → parse options → bind → resolve company → dispatch; every error goes through the one
 * error mapper, and every response carries `OData-Version: 4.0`.
 */
import { toErrorResponse } from '../errors/to-error-response.js';
import { MethodNotAllowedError } from '../errors/odata-error.js';
import { parseQueryOptions } from '../uri/parse-options.js';
import { parseResourcePath } from '../uri/parse-path.js';
import { bindPath } from '../uri/bind-path.js';
import { companyPrefix } from '../serialize/context-url.js';
import { dispatch } from './dispatch.js';
import { metadataDocument, serviceDocument } from './operations/metadata.js';
import type { ODataRequest, ODataResponse } from './request.js';
import { resolveCompany } from './resolve-company.js';
import type { ServiceContext } from './service-context.js';

async function handleUnsafe(svc: ServiceContext, req: ODataRequest): Promise<ODataResponse> {
  const path = parseResourcePath(req.path);
  const options = parseQueryOptions(req.rawQuery);
  const bound = bindPath(svc.model, path);
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  if (bound.kind === 'serviceDocument' || bound.kind === 'metadata') {
    if (method !== 'GET') throw new MethodNotAllowedError(`'${req.method}' requests for the ${bound.kind === 'metadata' ? 'metadata document' : 'service document'} are not allowed; use GET.`, ['GET']);
    return bound.kind === 'metadata' ? metadataDocument(svc, req, options.format) : serviceDocument(svc, req, options.format);
  }
  const company = resolveCompany(svc, bound.company, req.principal, options.custom.get('company'));
  const companySet = svc.model.company.entitySet;
  return await dispatch({
    svc,
    req,
    principal: req.principal,
    path: bound,
    options,
    company,
    links: { serviceRootUrl: req.serviceRootUrl, prefix: companyPrefix(companySet, company?.id) },
    contextPrefix: bound.company.kind === 'path' ? companyPrefix(companySet, company?.id) : '',
  });
}

/** Handles one request; never rejects. */
export async function handle(svc: ServiceContext, req: ODataRequest): Promise<ODataResponse> {
  let res: ODataResponse;
  try {
    res = await handleUnsafe(svc, req);
  } catch (e) {
    res = toErrorResponse(e, req.requestId, svc.log);
  }
  return { ...res, headers: { ...res.headers, 'OData-Version': '4.0' } };
}
