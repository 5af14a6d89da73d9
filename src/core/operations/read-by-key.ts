/**
 * GET of one entity by its GUID key with no query options and no conditional headers: a key read,
 * bound once per path shape by core/key-read-paths.ts, and the commonest request of OData clients.
 * It gets the general route's answer (handle.ts: resolveCompany, authorize, then readEntity) by the
 * same steps in the same order, less the per-request work that gives the same result for every key:
 * the read's plan, its context URL and its format are kept per shape, company, service root URL and
 * Accept header, and a request fills its values into the kept statement. Under load that work took
 * about 13 µs of a GET by key (the operation context, dispatch, path resolution, the plan cache's
 * key, the closures of readEntity).
 *
 * Whatever is not the plain case goes back to the general route, which then answers as always:
 * `readByKey` gives undefined before doing anything (the companies set and row-scoped types, whose
 * rows the route restricts), or resolves to undefined after its read (no such entity: the route's 404;
 * a body over the response budget: its 400; an entity the database does not write as JSON).
 */
import type { EntityType } from '../../edm/model.js';
import { authorize } from '../../auth/authorize.js';
import type { ReadStep } from '../../db/read-steps.js';
import { JSON_ALIAS } from '../../query/plan-select.js';
import { fillTemplate } from '../../query/plan-cache.js';
import { entityReadTemplates, readValues, type EntityReadTemplates } from '../../query/plan-read-request.js';
import { contextPath, contextUrl } from '../../serialize/context-url.js';
import { rowEtag } from '../../serialize/entity-json.js';
import { andThen, type MaybePromise } from '../../util/maybe-promise.js';
import { negotiateJson } from '../format.js';
import type { KeyRead } from '../key-read-paths.js';
import { operationContext } from '../operation-context.js';
import type { OperationRunners } from '../operation-runners.js';
import type { ODataRequest, ODataResponse } from '../request.js';
import type { Principal } from '../../auth/principal.js';
import { resolveCompany, type CompanyIdentity } from '../resolve-company.js';
import { entityTextFrame, framedEntityTextResponse, type EntityTextFrame } from '../responses.js';
import type { ServiceContext } from '../service-context.js';
import { contextSelect } from './read.js';
import { pageBudget } from './page-budget.js';

/** What a key read keeps per shape and request context: its statements, format and context URL. */
export interface KeyReadPlan {
  readonly templates: EntityReadTemplates;
  readonly context: string;
  readonly frame: EntityTextFrame;
}

/** Plans kept per shape at most (companies x service root URLs x Accept headers); then cleared. */
const PLANS_PER_SHAPE = 64;

/** The plans of one key-read shape by request context; the one used last is tried first (no key text to make). */
export class KeyReadPlans {
  private readonly byContext = new Map<string, KeyReadPlan | null>();
  private last: { readonly companyId: string | undefined; readonly root: string; readonly accept: string | undefined; readonly plan: KeyReadPlan | null } | undefined;

  /** The plan for a company, service root URL and Accept header; `make` plans it the first time. */
  get(companyId: string | undefined, root: string, accept: string | undefined, make: () => KeyReadPlan | null): KeyReadPlan | null {
    const last = this.last;
    if (last !== undefined && last.companyId === companyId && last.root === root && last.accept === accept) return last.plan;
    const key = `${companyId ?? ''}\n${root}\n${accept ?? ''}`;
    let plan = this.byContext.get(key);
    if (plan === undefined) {
      plan = make();
      if (this.byContext.size >= PLANS_PER_SHAPE) this.byContext.clear();
      this.byContext.set(key, plan);
    }
    this.last = { companyId, root, accept, plan };
    return plan;
  }
}

/**
 * The answer to a key read as the general route would give it, undefined when the route must answer
 * it (see the file comment). Throws what the route throws for the company and the permissions.
 */
export function readByKey(svc: ServiceContext, req: ODataRequest, principal: Principal, keyRead: KeyRead, runners: OperationRunners): MaybePromise<ODataResponse | undefined> | undefined {
  const { bound, options } = keyRead;
  const step = bound.steps[0];
  if (step === undefined || restricted(svc, step.type)) return undefined;
  return andThen(resolveCompany(svc, bound.company, principal, undefined), (company) => {
    authorize(principal, company?.id, bound, options, 'GET');
    const accept = req.headers['accept'];
    const plan = keyRead.plans.get(company?.id, req.serviceRootUrl, accept, () => planKeyRead(svc, req, principal, keyRead, company, runners, accept));
    if (plan === null) return undefined;
    const { templates, context, frame } = plan;
    const values = readValues(company?.id, step.keyConditions ?? []);
    const query = fillTemplate(templates.rows, values);
    const cancellable = (): ReadStep[] => [{ kind: 'row', query: fillTemplate(templates.cancellableRows, values) }];
    return andThen(runners.reads.run({ steps: [{ kind: 'row', query }], cancellable, cost: templates.cost, owner: principal.userId }), (results): ODataResponse | undefined => {
      const first = results[0];
      const row = first?.kind === 'row' ? first.row : undefined;
      if (row === undefined) return undefined;
      const text = row[JSON_ALIAS] as string;
      if (text.length > pageBudget(runners.responseBytes, context)) return undefined;
      return framedEntityTextResponse(200, text, rowEtag(row), frame);
    });
  });
}

/** Types whose rows the route restricts (restrictCompanies, restrictRowScope, restrictOwnerScope in handle.ts). */
function restricted(svc: ServiceContext, type: EntityType): boolean {
  return type === svc.model.company || type.rowScope !== undefined || type.ownerScope !== undefined;
}

/** The plan of a key read in its request context, as readEntity makes it; null when it is not a JSON text read. */
function planKeyRead(svc: ServiceContext, req: ODataRequest, principal: Principal, keyRead: KeyRead, company: CompanyIdentity | undefined, runners: OperationRunners, accept: string | undefined): KeyReadPlan | null {
  const ctx = operationContext(svc, req, principal, keyRead.bound, keyRead.options, company, runners);
  const step = keyRead.bound.steps[0];
  if (step === undefined) return null;
  const format = negotiateJson(keyRead.options.format, accept);
  const templates = entityReadTemplates(ctx.read, step.type, step.keyConditions ?? [], format);
  if (templates === undefined || templates.json === undefined) return null;
  // The root step's context path does not depend on the key (contextPath uses keys for contained steps only).
  const context = contextUrl(req.serviceRootUrl, ctx.contextPrefix, contextPath(keyRead.bound.steps, []), contextSelect(templates.query), true);
  return { templates, context, frame: entityTextFrame(context, format) };
}
