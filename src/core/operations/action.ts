/**
 * Bound actions (OData Protocol §11.5.4): POST `.../entity(<key>)/Namespace.action`. The model declares
 * them; their behaviour comes from the `actions` of the type's hook module. The framework loads the
 * bound entity and checks If-Match (only when sent, conventions §2) inside one write transaction, runs
 * the handler there (its writes and events commit or roll back together), then answers 200 with the
 * returned entity, or 204 when the action declares no return type.
 */
import type { BoundAction } from '../../edm/model.js';
import type { StoredValue } from '../../edm/values.js';
import { NotImplementedError } from '../../errors/odata-error.js';
import { contextUrl } from '../../serialize/context-url.js';
import { rowEtag } from '../../serialize/entity-json.js';
import { negotiateJson } from '../format.js';
import type { OperationContext } from '../operation-context.js';
import type { ODataResponse } from '../request.js';
import { loadTarget, readRow, recordNotFound } from '../../store/resolve-path.js';
import { checkPreconditions } from '../preconditions.js';
import { entityResponse, noContent } from '../responses.js';
import { writeIdentity } from './write-hooks.js';

/** Invokes a bound action through its registered handler. */
export async function invokeAction(ctx: OperationContext, action: BoundAction): Promise<ODataResponse> {
  const { svc } = ctx;
  const type = ctx.path.steps[ctx.path.steps.length - 1]?.type;
  if (type === undefined) throw new Error('empty path');
  const handler = svc.hooks.action(type, action.name);
  if (handler === undefined) throw new NotImplementedError(`The action '${action.qualifiedName}' is declared but has no implementation in this service.`);
  const format = negotiateJson(ctx.options.format, ctx.req.headers['accept']);
  const identity = writeIdentity(ctx);
  const returnType = action.returnType;

  const result = await ctx.writes.run(svc, identity, async (session) => {
    const target = await loadTarget(svc, session.tx, ctx.path.steps, identity.companyId);
    checkPreconditions(ctx.preconditions, rowEtag(target.row), false);
    const returned = await session.invoke(target.type, action.name, handler, target.row);
    if (returnType === undefined) return undefined;
    const key = returned?.[returnType.key.name] as StoredValue | undefined;
    if (key === undefined || key === null) throw new Error(`The action ${action.qualifiedName} must return a ${returnType.name} row (with its key).`);
    // Read back with the row version, so the response carries the current ETag.
    const conditions = [{ property: returnType.key.name, value: key }];
    const row = await readRow(svc, session.tx, returnType, identity.companyId, conditions);
    if (row === undefined) throw recordNotFound(returnType, conditions);
    return row;
  });

  if (returnType === undefined || result === undefined) return noContent();
  const context = contextUrl(ctx.req.serviceRootUrl, ctx.contextPrefix, returnType.entitySet, undefined, true);
  return entityResponse(200, returnType, result, context, { format, links: ctx.links });
}
