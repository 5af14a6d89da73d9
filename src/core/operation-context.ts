/**
 * Per-request state the operations share: the bound path, the company, the negotiated format and
 * the link bases. Built by `handle` after parsing and binding (operationContext).
 */
import type { ODataRequest } from './request.js';
import type { Principal } from '../auth/principal.js';
import type { ServiceContext } from './service-context.js';
import type { CompanyIdentity } from './resolve-company.js';
import type { BoundPath } from '../uri/bound-path.js';
import type { QueryOptions } from '../uri/ast.js';
import type { EntityLinkBase } from '../serialize/entity-json.js';
import type { OperationRunners, ReadRunner, WriteRunner } from './operation-runners.js';
import { companyPrefix } from '../serialize/context-url.js';
import { preconditionsOf, type Preconditions } from './preconditions.js';
import { pageSizeOf, type ReadInput } from '../query/read-input.js';

/** A resource path (not the service document or $metadata). */
export type ResourcePathBinding = Extract<BoundPath, { kind: 'resource' }>;

/** Everything an operation needs about its request. */
export interface OperationContext {
  readonly svc: ServiceContext;
  readonly req: ODataRequest;
  readonly principal: Principal;
  readonly path: ResourcePathBinding;
  readonly options: QueryOptions;
  /** If-Match and If-None-Match, read once from the headers. */
  readonly preconditions: Preconditions;
  /** The request's company; undefined for global resources. */
  readonly company: CompanyIdentity | undefined;
  /** Link base for entity URLs (company-scoped whenever the row has a company). */
  readonly links: EntityLinkBase;
  /** Prefix of context URLs: `companies(<id>)/` for company-scoped URLs, '' for unscoped ones. */
  readonly contextPrefix: string;
  /** Where the operation's reads run (the service's read executor, or a batch's read run). */
  readonly reads: ReadRunner;
  /** How the operation's transaction runs (its own, or its change set's). */
  readonly writes: WriteRunner;
  /** The bytes the response body may take (limits.maxResponseBytes; a batch part's share of it). */
  readonly responseBytes: number;
  /** What the read planners take, read once from the request (query/read-input.ts). */
  readonly read: ReadInput;
}

/** The context of an operation on `bound` once its company and options are resolved. */
export function operationContext(svc: ServiceContext, req: ODataRequest, principal: Principal, bound: ResourcePathBinding, options: QueryOptions, company: CompanyIdentity | undefined, runners: OperationRunners): OperationContext {
  const companySet = svc.model.company.entitySet;
  const links = { serviceRootUrl: req.serviceRootUrl, prefix: companyPrefix(companySet, company?.id) };
  return {
    svc,
    req,
    principal,
    path: bound,
    options,
    preconditions: preconditionsOf(req.headers),
    company,
    links,
    contextPrefix: bound.company.kind === 'path' ? companyPrefix(companySet, company?.id) : '',
    reads: runners.reads,
    writes: runners.writes,
    responseBytes: runners.responseBytes,
    read: {
      model: svc.model,
      dialect: svc.engine.dialect,
      options,
      companyId: company?.id,
      links,
      page: pageSizeOf(svc.model.service, req.headers['prefer']),
      url: { serviceRootUrl: req.serviceRootUrl, path: req.path, rawQuery: req.rawQuery },
      planOwner: svc,
    },
  };
}
