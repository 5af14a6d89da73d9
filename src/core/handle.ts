/**
 * The core: an OData request in, an OData response out (Olingo's ODataHandler.process).
 * authenticate → parse path → parse options → bind → resolve company (access) → authorize
 * (permission sets) → dispatch; every error goes through the one error mapper, and every response
 * carries `OData-Version: 4.0`.
 */
import { toErrorResponse } from '../errors/to-error-response.js';
import { CompanyAccessDeniedError, MethodNotAllowedError } from '../errors/odata-error.js';
import { parseQueryOptions } from '../uri/parse-options.js';
import { parseResourcePath } from '../uri/parse-path.js';
import { bindPath } from '../uri/bind-path.js';
import type { Expr, QueryOptions } from '../uri/ast.js';
import type { ResourcePathBinding } from './operation-context.js';
import { companyPrefix } from '../serialize/context-url.js';
import { authorize } from '../auth/authorize.js';
import { dispatch } from './dispatch.js';
import { metadataDocument, serviceDocument } from './operations/metadata.js';
import type { ODataRequest, ODataResponse, Principal } from './request.js';
import { findCompany, resolveCompany } from './resolve-company.js';
import type { ServiceContext } from './service-context.js';

const NO_SPAN = { start: 0, end: 0 };

/** The service document and $metadata, which may be served without a token. */
function isMetadataPath(path: string): boolean {
  return path === '' || path === '/' || path === '/$metadata';
}

/**
 * The companies list shows only companies the caller has a grant in (an `id in (...)` condition AND-ed to
 * the client's $filter); one company addressed by key must be granted.
 */
function restrictCompanies(svc: ServiceContext, bound: ResourcePathBinding, options: QueryOptions, principal: Principal): QueryOptions {
  const root = bound.steps[0];
  if (root === undefined || root.type !== svc.model.company || bound.company.kind !== 'none') return options;
  if (root.key !== undefined) {
    if (!principal.companies.has(String(root.key))) throw new CompanyAccessDeniedError(findCompany(svc, String(root.key))?.name ?? String(root.key));
    return options;
  }
  const granted: Expr = {
    kind: 'binary',
    operator: 'in',
    left: { kind: 'member', root: { kind: 'it' }, segments: [{ kind: 'name', name: svc.model.company.key.name, span: NO_SPAN }], span: NO_SPAN },
    right: { kind: 'list', items: [...principal.companies].map((id) => ({ kind: 'literal', literal: { kind: 'guid', value: id }, span: NO_SPAN })), span: NO_SPAN },
    span: NO_SPAN,
  };
  const filter: Expr = options.filter === undefined ? granted : { kind: 'binary', operator: 'and', left: granted, right: options.filter, span: NO_SPAN };
  return { ...options, filter };
}

async function handleUnsafe(svc: ServiceContext, req: ODataRequest): Promise<ODataResponse> {
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  const publicPath = svc.publicMetadata && isMetadataPath(req.path);
  const principal = publicPath ? undefined : await svc.authenticator.authenticate(req.headers['authorization'], { requestId: req.requestId, clientAddress: req.clientAddress });
  const path = parseResourcePath(req.path);
  const parsed = parseQueryOptions(req.rawQuery);
  const bound = bindPath(svc.model, path);
  if (bound.kind === 'serviceDocument' || bound.kind === 'metadata') {
    if (method !== 'GET') throw new MethodNotAllowedError(`'${req.method}' requests for the ${bound.kind === 'metadata' ? 'metadata document' : 'service document'} are not allowed; use GET.`, ['GET']);
    return bound.kind === 'metadata' ? metadataDocument(svc, req, parsed.format) : serviceDocument(svc, req, parsed.format);
  }
  if (principal === undefined) throw new Error('resource request without a principal');
  const company = resolveCompany(svc, bound.company, principal, parsed.custom.get('company'));
  const options = restrictCompanies(svc, bound, parsed, principal);
  authorize(principal, company?.id, bound, options, method);
  const companySet = svc.model.company.entitySet;
  return await dispatch({
    svc,
    req,
    principal,
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
