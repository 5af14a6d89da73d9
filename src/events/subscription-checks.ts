/**
 * The security checks of webhook subscriptions (conventions §6, §12), run by the framework for the
 * model's subscription type whatever the rule list says: the subscription names a declared event; its
 * notificationUrl is an absolute http(s) URL without credentials whose host the operator's address
 * policy allows (private, loopback and link-local targets only with `serve --webhooks-allow-private`);
 * and the endpoint passes the validation handshake (the validationToken echoed within 5 s). They run
 * before the type's own rule module, if it has one. Every PATCH (which may change notificationUrl and
 * clientState) runs the handshake again, against the new notificationUrl or, when the body sends none,
 * the current one (read through `rows`, outside the transaction). Inside the create's transaction the
 * subscription limits apply, counted with the entity-change subscriptions (subscription-limits.ts).
 * The caller's EVENTS permission is the framework's row scope, the signing secret the type's `secret`,
 * clientState's length the model's maxLength.
 */
import type { EdmModel, EntityType } from '../edm/model.js';
import type { StoredValue } from '../edm/values.js';
import type { BeforeWriteContext, EntityHooks, ValidateWriteContext } from '../hooks/types.js';
import type { CurrentRowReader } from './current-row.js';
import { validationHandshake } from './handshake.js';
import { checkNotificationTarget, notificationUrl, subscribedEvent } from './subscription-request.js';
import { checkSubscriptionLimits } from './subscription-limits.js';

/** The checks of one subscription write, before its transaction opens. */
async function checkSubscription(ctx: BeforeWriteContext, type: EntityType, rows: CurrentRowReader): Promise<void> {
  const { changes, services } = ctx;
  if (ctx.op === 'delete') return;
  if (ctx.op === 'create') subscribedEvent(services.model, changes['appId'], changes['eventName'], changes['eventVersion']);
  let url: StoredValue | undefined = changes['notificationUrl'];
  if (ctx.op === 'update' && !('notificationUrl' in changes)) {
    const current = ctx.key === undefined ? undefined : await rows(type, ctx.key);
    if (current === undefined) return; // the write answers 404
    url = current['notificationUrl'] as StoredValue;
  }
  const target = notificationUrl(url);
  await checkNotificationTarget(services.outbound, target);
  await validationHandshake(services.outbound, target, services.callTimeoutMs);
}

/** The limits, in the create's transaction. */
async function checkLimits(ctx: ValidateWriteContext, model: EdmModel, type: EntityType): Promise<void> {
  const company = type.rowScope?.companyProperty.name;
  const creator = type.properties.find((p) => p.default?.kind === 'currentUser')?.name;
  if (ctx.op !== 'create' || company === undefined || creator === undefined) return;
  await checkSubscriptionLimits(ctx.db, model, String(ctx.after[company]), String(ctx.after[creator]));
}

/**
 * The framework's hook modules of the events code: the subscription checks, when the model has events;
 * `rows` reads the row a PATCH addresses (current-row.ts).
 */
export function eventFrameworkHooks(model: EdmModel, rows: CurrentRowReader): readonly EntityHooks[] {
  const subscription = model.eventTypes?.subscription;
  return subscription === undefined ? [] : [{ entityType: subscription.name, beforeWrite: (ctx) => checkSubscription(ctx, subscription, rows), validateWrite: (ctx) => checkLimits(ctx, model, subscription) }];
}
