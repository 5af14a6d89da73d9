/**
 * What the HTTP write operations (entity writes, media, actions) share about hooks: who writes and
 * when (the identity of every write in the transaction), and the `beforeWrite` phase, which runs
 * after body validation and before the transaction opens.
 */
import type { EntityType } from '../../edm/model.js';
import type { StoredValue } from '../../edm/values.js';
import { runBeforeWrite } from '../../hooks/run-hooks.js';
import type { WriteOp } from '../../hooks/types.js';
import type { WriteIdentity } from '../../store/write-session.js';
import type { OperationContext } from '../operation-context.js';

/** The identity of the writes a request makes. */
export function writeIdentity(ctx: OperationContext): WriteIdentity {
  return { companyId: ctx.company?.id, principal: ctx.principal, requestId: ctx.req.requestId, now: new Date() };
}

/** Runs the type's `beforeWrite` hook; returns the values to write (the body's, possibly adjusted). */
export async function beforeWrite(ctx: OperationContext, type: EntityType, op: WriteOp, changes: ReadonlyMap<string, StoredValue>): Promise<Map<string, StoredValue>> {
  const last = ctx.path.steps[ctx.path.steps.length - 1];
  const key = last?.key === undefined || last.key === null ? undefined : String(last.key);
  const values = await runBeforeWrite(
    ctx.svc.hooks.forType(type),
    {
      entityType: type.name,
      entitySet: type.entitySet,
      requestId: ctx.req.requestId,
      user: ctx.principal,
      companyId: ctx.company?.id,
      op,
      key,
      services: { model: ctx.svc.model, outbound: ctx.svc.outbound, callTimeoutMs: ctx.svc.callTimeoutMs },
    },
    changes,
  );
  // A hook may add values; a name that is not a stored property is a bug in the rule, not a bad request.
  for (const name of values.keys()) {
    const p = type.propertyByName.get(name);
    if (p === undefined || p.storage.kind === 'computed') throw new Error(`beforeWrite of ${type.name} set '${name}', which is not a stored property.`);
  }
  return values;
}
