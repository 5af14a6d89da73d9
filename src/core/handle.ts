/**
 * The core: an OData request in, an OData response out (Olingo's ODataHandler.process).
 * authenticate → parse path → parse options → bind → resolve company (access) → restrict rows
 * (companies list, row-scoped and owner-scoped types) → authorize (permission sets) → dispatch. A GET by key with no
 * query options is bound once per path shape (key-read-paths.ts) and read on a kept plan
 * (operations/read-by-key.ts), with the same steps and the same answers. Every error goes through
 * the one error mapper, and every response carries `OData-Version: 4.0`.
 */
import { answerFollowsRow, conditionalGet } from './conditional-get.js';
import { answerError } from './answer-error.js';
import { AuthenticationError, CompanyAccessDeniedError, MethodNotAllowedError, TooManyRequestsError } from '../errors/odata-error.js';
import { refuseNul } from '../uri/nul-character.js';
import { bindPath } from '../uri/bind-path.js';
import type { Expr, QueryOptions } from '../uri/ast.js';
import type { ResourcePathBinding } from './operation-context.js';
import type { BoundPath } from '../uri/bound-path.js';
import type { OwnerScope } from '../edm/model.js';
import { authorize, ownsRow, rowScopeCompanies, superCompanies } from '../auth/authorize.js';
import { readRow, recordNotFound } from '../store/resolve-path.js';
import { dispatch } from './dispatch.js';
import { checkQueryOptions } from './check-query-options.js';
import { withCompanyKeyHint } from './company-key-hint.js';
import { metadataDocument, openApiDocument, serviceDocument } from './operations/metadata.js';
import { OPENAPI_PATH } from '../serialize/openapi.js';
import type { ODataRequest, ODataResponse } from './request.js';
import type { Principal } from '../auth/principal.js';
import { resolveCompany, type CompanyIdentity } from './resolve-company.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import type { ServiceContext } from './service-context.js';
import { ownRunners, type OperationRunners } from './operation-runners.js';
import type { Release } from './fair-use.js';
import { readIntentOf } from './read-intent.js';
import { operationContext } from './operation-context.js';
import { readByKey } from './operations/read-by-key.js';
import { BatchFormatError } from '../errors/odata-error.js';

const NO_SPAN = { start: 0, end: 0 };

/** The path of the batch endpoint below the service root. */
const BATCH_PATH = '/$batch';

/** The service document, $metadata and the OpenAPI description, which may be served without a token. */
function isMetadataPath(path: string): boolean {
  return path === '' || path === '/' || path === '/$metadata' || path === OPENAPI_PATH;
}

/** `<property> in (<guid>, ...)`: the condition the read restrictions AND to the client's $filter. */
function guidIn(property: string, ids: readonly string[]): Expr {
  return {
    kind: 'binary',
    operator: 'in',
    left: { kind: 'member', root: { kind: 'it' }, segments: [{ kind: 'name', name: property, span: NO_SPAN }], span: NO_SPAN },
    right: { kind: 'list', items: ids.map((id) => ({ kind: 'literal', literal: { kind: 'guid', value: id }, span: NO_SPAN })), span: NO_SPAN },
    span: NO_SPAN,
  };
}

/**
 * Restricts the rows a request reads: AND-ed to `$filter`, or, with `$apply`, a first `filter`
 * transformation, since `$filter` then applies to aggregated instances (Data Aggregation §3).
 */
function andFilter(options: QueryOptions, condition: Expr): QueryOptions {
  if (options.apply !== undefined) return { ...options, apply: [{ kind: 'filter', predicate: condition, span: NO_SPAN }, ...options.apply] };
  const filter: Expr = options.filter === undefined ? condition : { kind: 'binary', operator: 'and', left: condition, right: options.filter, span: NO_SPAN };
  return { ...options, filter };
}

/**
 * The companies list shows only companies the caller has a grant in (an `id in (...)` condition AND-ed to
 * the client's $filter); one company addressed by key must be granted.
 */
function restrictCompanies(svc: ServiceContext, bound: ResourcePathBinding, options: QueryOptions, principal: Principal): QueryOptions {
  const root = bound.steps[0];
  if (root === undefined || root.type !== svc.model.company || bound.company.kind !== 'none') return options;
  if (root.key !== undefined) {
    if (!principal.companies.has(String(root.key))) throw new CompanyAccessDeniedError();
    return options;
  }
  return andFilter(options, guidIn(svc.model.company.key.name, [...principal.companies]));
}

/**
 * A row-scoped type (model `rowScope`) shows only rows of companies in which the caller holds the type's
 * permission set or SUPER: a collection gets `<companyProperty> in (...)` AND-ed to the client's $filter;
 * a row addressed by key in another company is answered like a missing one (404), so ids do not leak.
 * No navigation leads into such a type (the model checks), so the root step is the only one to restrict.
 */
function restrictRowScope(svc: ServiceContext, bound: ResourcePathBinding, options: QueryOptions, principal: Principal): MaybePromise<QueryOptions> {
  const root = bound.steps[0];
  const scope = root?.type.rowScope;
  if (root === undefined || scope === undefined) return options;
  const companies = rowScopeCompanies(principal, scope);
  if (companies.length === 0) return options; // authorize() answers 403
  const keyConditions = root.keyConditions;
  if (keyConditions === undefined) return andFilter(options, guidIn(scope.companyProperty.name, companies));
  return andThen(readRow(svc, svc.engine.db, root.type, undefined, keyConditions), (row) => {
    if (row !== undefined && !companies.includes(String(row[scope.companyProperty.name]))) throw recordNotFound(root.type, keyConditions);
    return options;
  });
}

/** `<userProperty> eq '<user>'`, or'ed with `<companyProperty> in (...)` for the companies where the caller holds SUPER. */
function ownerCondition(scope: OwnerScope, userId: string, companies: readonly string[]): Expr {
  const own: Expr = {
    kind: 'binary',
    operator: 'eq',
    left: { kind: 'member', root: { kind: 'it' }, segments: [{ kind: 'name', name: scope.userProperty.name, span: NO_SPAN }], span: NO_SPAN },
    right: { kind: 'literal', literal: { kind: 'string', value: userId }, span: NO_SPAN },
    span: NO_SPAN,
  };
  if (companies.length === 0) return own;
  return { kind: 'binary', operator: 'or', left: own, right: guidIn(scope.companyProperty.name, companies), span: NO_SPAN };
}

/**
 * An owner-scoped type (model `ownerScope`, e.g. entity-change subscriptions) shows the caller's own rows
 * and every row of the companies where it holds SUPER: a collection gets that condition AND-ed to the
 * client's $filter; a row addressed by key that the caller may not see is answered like a missing one
 * (404), for GET, PATCH and DELETE alike. No navigation leads into such a type (the model checks).
 */
function restrictOwnerScope(svc: ServiceContext, bound: ResourcePathBinding, options: QueryOptions, principal: Principal): MaybePromise<QueryOptions> {
  const root = bound.steps[0];
  const scope = root?.type.ownerScope;
  if (root === undefined || scope === undefined) return options;
  const keyConditions = root.keyConditions;
  if (keyConditions === undefined) return andFilter(options, ownerCondition(scope, principal.userId, superCompanies(principal)));
  return andThen(readRow(svc, svc.engine.db, root.type, undefined, keyConditions), (row) => {
    if (row !== undefined && !ownsRow(principal, scope, row)) throw recordNotFound(root.type, keyConditions);
    return options;
  });
}

/**
 * Authenticates, then routes. Returns a promise only when a step needs one (a JWT, a write): reads
 * with an opaque token run without a microtask hop; throws synchronously or rejects alike.
 */
function handleUnsafe(svc: ServiceContext, req: ODataRequest): ODataResponse | Promise<ODataResponse> {
  if (svc.publicMetadata && isMetadataPath(req.path)) return route(svc, req, undefined, ownRunners(svc));
  const credential = req.headers['authorization'];
  if (svc.authFailures.anyRecent()) {
    // A credential that kept failing from this address is not checked again (conventions §11).
    const wait = svc.authFailures.credentialBlocked(req.clientAddress, credential);
    if (wait !== undefined) throw rateLimited(svc, req, wait);
  }
  let principal: Principal | Promise<Principal>;
  try {
    principal = svc.authenticator.authenticate(credential, { requestId: req.requestId, clientAddress: req.clientAddress });
  } catch (e) {
    throw countFailure(svc, req, e);
  }
  const runners = ownRunners(svc, readIntentOf(req.method, req.headers));
  if (!(principal instanceof Promise)) return withinFairUse(svc, req, principal, runners);
  return principal.then(
    (p) => withinFairUse(svc, req, p, runners),
    (e: unknown) => {
      throw countFailure(svc, req, e);
    },
  );
}

/**
 * Routes the request in one of its user's running places, counted in the user's window (fair-use.ts):
 * a `$batch` takes one place and its parts are counted as they run (handleAuthenticated); the service
 * document and $metadata are not counted. The place is given back when the answer is ready.
 */
function withinFairUse(svc: ServiceContext, req: ODataRequest, principal: Principal, runners: OperationRunners): ODataResponse | Promise<ODataResponse> {
  if (isMetadataPath(req.path)) return route(svc, req, principal, runners);
  const counted = req.path !== BATCH_PATH;
  const run = (release: Release): ODataResponse | Promise<ODataResponse> => {
    let r: ODataResponse | Promise<ODataResponse>;
    try {
      if (counted) svc.fairUse.count(principal.userId);
      r = route(svc, req, principal, runners);
    } catch (e) {
      release();
      throw e;
    }
    if (!(r instanceof Promise)) {
      release();
      return r;
    }
    return r.finally(release);
  };
  const place = svc.fairUse.enter(principal.userId);
  return place instanceof Promise ? place.then(run) : run(place);
}

/** Counts an authentication failure; the error to answer with (429 once the address is over the limit). */
function countFailure(svc: ServiceContext, req: ODataRequest, e: unknown): unknown {
  if (!(e instanceof AuthenticationError)) return e;
  const wait = svc.authFailures.failed(req.clientAddress, req.headers['authorization']);
  return wait === undefined ? e : rateLimited(svc, req, wait);
}

function rateLimited(svc: ServiceContext, req: ODataRequest, wait: number): TooManyRequestsError {
  svc.log.warn({ requestId: req.requestId, clientAddress: req.clientAddress }, 'authentication rate limit reached');
  return new TooManyRequestsError(wait);
}

function route(svc: ServiceContext, req: ODataRequest, principal: Principal | undefined, runners: OperationRunners): ODataResponse | Promise<ODataResponse> {
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  if (req.path === BATCH_PATH) {
    if (principal === undefined) throw new Error('$batch without a principal');
    // A part is never a batch itself (the batch parsers refuse one): runners of a part mean a nested batch.
    if (runners.inBatch) throw new BatchFormatError('A request inside a batch cannot be a batch itself.');
    return svc.handleBatch(svc, req, (part, partRunners) => handleAuthenticated(svc, part, principal, partRunners));
  }
  if (req.path === OPENAPI_PATH) {
    if (method !== 'GET') throw new MethodNotAllowedError(`'${req.method}' requests for the OpenAPI description are not allowed; use GET.`, ['GET']);
    return openApiDocument(svc);
  }
  // A GET by key with no query options binds as others of its shape did (key-read-paths.ts).
  const keyRead = method === 'GET' && req.rawQuery === '' ? svc.keyReads.bind(req.path) : undefined;
  let bound: BoundPath;
  let parsed: QueryOptions;
  if (keyRead !== undefined) {
    ({ bound, options: parsed } = keyRead);
  } else {
    refuseNul(req.path, 'path');
    refuseNul(req.rawQuery, 'query');
    // A company's key in the path that does not parse or bind gets a hint at the forms that work.
    const hinted = <T>(step: () => T): T => {
      try {
        return step();
      } catch (e) {
        throw withCompanyKeyHint(svc.model, req.path, e);
      }
    };
    const path = hinted(() => svc.paths.parse(req.path));
    parsed = svc.queryOptions.parse(req.rawQuery);
    bound = hinted(() => bindPath(svc.model, path));
    checkQueryOptions(parsed, bound, method);
  }
  if (bound.kind === 'serviceDocument' || bound.kind === 'metadata') {
    if (method !== 'GET') throw new MethodNotAllowedError(`'${req.method}' requests for the ${bound.kind === 'metadata' ? 'metadata document' : 'service document'} are not allowed; use GET.`, ['GET']);
    return bound.kind === 'metadata' ? metadataDocument(svc, req, parsed.format) : serviceDocument(svc, req, parsed.format);
  }
  if (principal === undefined) throw new Error('resource request without a principal');
  const resource = bound;
  const options = parsed;
  if (keyRead !== undefined && req.headers['if-none-match'] === undefined && req.headers['if-match'] === undefined) {
    // Answered as below, without the per-request planning (operations/read-by-key.ts), or undefined to go on below.
    const answer = readByKey(svc, req, principal, keyRead, runners);
    if (answer !== undefined) return andThen(answer, (r) => r ?? resolveAndOperate(svc, req, principal, resource, options, runners));
  }
  return resolveAndOperate(svc, req, principal, resource, options, runners);
}

/** Resolves the company, restricts rows, authorizes and dispatches a resource request (conditional GETs answered here). */
function resolveAndOperate(svc: ServiceContext, req: ODataRequest, principal: Principal, bound: ResourcePathBinding, parsed: QueryOptions, runners: OperationRunners): ODataResponse | Promise<ODataResponse> {
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  return andThen(resolveCompany(svc, bound.company, principal, parsed.custom.get('company')), (company) =>
    andThen(andThen(restrictRowScope(svc, bound, restrictCompanies(svc, bound, parsed, principal), principal), (scoped) => restrictOwnerScope(svc, bound, scoped, principal)), (options) => {
      authorize(principal, company?.id, bound, options, method);
      const res = operate(svc, req, principal, bound, options, company, runners);
      if (method !== 'GET' || (req.headers['if-none-match'] === undefined && req.headers['if-match'] === undefined)) return res;
      const type = bound.steps[bound.steps.length - 1]?.type;
      const notModified = type !== undefined && answerFollowsRow(type, bound.target, options);
      return andThen(res, (r) => conditionalGet(req, r, notModified));
    }),
  );
}

/** Dispatches a request whose company and options are resolved. */
function operate(svc: ServiceContext, req: ODataRequest, principal: Principal, bound: ResourcePathBinding, options: QueryOptions, company: CompanyIdentity | undefined, runners: OperationRunners): ODataResponse | Promise<ODataResponse> {
  return dispatch(operationContext(svc, req, principal, bound, options, company, runners));
}

/**
 * Handles one request of a `$batch` for the batch's principal (authenticated once, for the whole
 * batch) with the runners the batch gives it; never throws or rejects. Everything after
 * authentication is the same as for a request on its own.
 */
export function handleAuthenticated(svc: ServiceContext, req: ODataRequest, principal: Principal, runners: OperationRunners): ODataResponse | Promise<ODataResponse> {
  let r: ODataResponse | Promise<ODataResponse>;
  try {
    svc.fairUse.count(principal.userId);
    r = route(svc, req, principal, runners);
  } catch (e) {
    return finish(answerError(svc, e, req.requestId));
  }
  if (!(r instanceof Promise)) return finish(r);
  return r.then(finish, (e: unknown) => finish(answerError(svc, e, req.requestId)));
}

/** Handles one request; never throws or rejects. A promise only when the request had to wait (see handleUnsafe). */
export function handle(svc: ServiceContext, req: ODataRequest): ODataResponse | Promise<ODataResponse> {
  // Reads of the requests of one event-loop turn share one snapshot (db/sqlite/sqlite-shared-reads.ts).
  svc.engine.enterRequest(req.turnSnapshot === true);
  let r: ODataResponse | Promise<ODataResponse>;
  try {
    r = handleUnsafe(svc, req);
  } catch (e) {
    svc.engine.leaveRequest();
    return finish(answerError(svc, e, req.requestId));
  }
  if (!(r instanceof Promise)) {
    svc.engine.leaveRequest();
    return finish(r);
  }
  return r.then(
    (res) => {
      svc.engine.leaveRequest();
      return finish(res);
    },
    (e: unknown) => {
      svc.engine.leaveRequest();
      return finish(answerError(svc, e, req.requestId));
    },
  );
}

/** The response with `OData-Version: 4.0` (the JSON response builders put it in already: no copy). */
function finish(res: ODataResponse): ODataResponse {
  if (res.headers['OData-Version'] === '4.0') return res;
  return { ...res, headers: { ...res.headers, 'OData-Version': '4.0' } };
}
