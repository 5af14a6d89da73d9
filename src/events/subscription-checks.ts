/**
 * The security checks of webhook subscriptions (conventions §6), run by the framework for the model's
 * subscription type whatever the rule list says: the subscription names a declared event; its
 * notificationUrl is an absolute http(s) URL without credentials whose host the operator's address
 * policy allows (private, loopback and link-local targets only with `serve --webhooks-allow-private`);
 * and the endpoint passes the validation handshake (the validationToken echoed within 5 s). They run
 * before the type's own rule module, if it has one, and again for a changed notificationUrl should a
 * model make it updatable. The caller's EVENTS permission is the framework's row scope, the signing
 * secret the type's `secret`, clientState's length the model's maxLength.
 */
import type { EdmModel } from '../edm/model.js';
import type { BeforeWriteContext, EntityHooks } from '../hooks/types.js';
import { validationHandshake } from './handshake.js';
import { checkNotificationTarget, notificationUrl, subscribedEvent } from './subscription-request.js';

/** The checks of one subscription write, before its transaction opens. */
async function checkSubscription(ctx: BeforeWriteContext): Promise<void> {
  const { changes, services } = ctx;
  if (ctx.op === 'delete') return;
  if (ctx.op === 'create') subscribedEvent(services.model, changes['appId'], changes['eventName'], changes['eventVersion']);
  if (ctx.op === 'update' && !('notificationUrl' in changes)) return;
  const url = notificationUrl(changes['notificationUrl']);
  await checkNotificationTarget(services.outbound, url);
  await validationHandshake(services.outbound, url, services.callTimeoutMs);
}

/** The framework's hook modules of the events code: the subscription checks, when the model has events. */
export function eventFrameworkHooks(model: EdmModel): readonly EntityHooks[] {
  const subscription = model.eventTypes?.subscription;
  return subscription === undefined ? [] : [{ entityType: subscription.name, beforeWrite: checkSubscription }];
}
