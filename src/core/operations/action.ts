/**
 * Bound actions (OData Protocol §11.5.4): POST `.../entity(<key>)/Namespace.action`. The model declares
 * them; their behaviour comes from the action handlers registered with the service (business modules).
 */
import type { BoundAction } from '../../edm/model.js';
import { NotImplementedError } from '../../errors/odata-error.js';
import type { OperationContext } from '../operation-context.js';
import type { ODataResponse } from '../request.js';

/** Invokes a bound action through its registered handler. */
export async function invokeAction(ctx: OperationContext, action: BoundAction): Promise<ODataResponse> {
  const handler = ctx.svc.actions.get(action);
  if (handler === undefined) throw new NotImplementedError(`The action '${action.qualifiedName}' is declared but has no implementation in this service.`);
  return await handler(ctx, action);
}
