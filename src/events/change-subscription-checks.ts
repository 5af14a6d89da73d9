/**
 * The framework's checks of entity-change subscriptions (conventions §12; Business Central's
 * `subscriptions` API), for the type service.json names in `changeSubscriptionEntityType`, whatever the
 * rule list says. Before the transaction (beforeWrite):
 * - create: `resource` names a company's subscribable collection (400 naming `resource` otherwise); the
 *   caller has a grant in that company (403 Authorization_CompanyAccessDenied, §11) and the set's read
 *   permission there (403 Authorization_PermissionDenied); notificationUrl is an allowed http(s) URL that
 *   passes the validation handshake (§6); the service sets the key (32 lower-case hex digits, random),
 *   the company (the resource's) and expirationDateTime (now + `webhooks.subscriptionLifetimeMs`).
 *   `resource` is stored as the client wrote it.
 * - update (a renewal; If-Match is required as for every PATCH): a `resource` must name the same company
 *   and set (any accepted form; the stored text stays), else 400; the handshake runs again against the
 *   new notificationUrl or, when the body sends none, the current one; expirationDateTime moves to now +
 *   lifetime. A failed check changes nothing.
 * Inside the create's transaction (validateWrite): the subscription limits (subscription-limits.ts).
 */
import { randomBytes } from 'node:crypto';
import type { EdmModel, EntityType } from '../edm/model.js';
import type { StoredValue } from '../edm/values.js';
import { allows, requiredSet } from '../auth/permission-sets.js';
import type { Principal } from '../auth/principal.js';
import { BodyValidationError, CompanyAccessDeniedError, PermissionDeniedError } from '../errors/odata-error.js';
import type { BeforeWriteContext, EntityHooks, ValidateWriteContext } from '../hooks/types.js';
import type { CurrentRowReader } from './current-row.js';
import { validationHandshake } from './handshake.js';
import { checkNotificationTarget, notificationUrl } from './subscription-request.js';
import { checkSubscriptionLimits } from './subscription-limits.js';
import { parseSubscriptionResource, type SubscriptionResource } from './subscription-resource.js';

const FIELD_ERROR = 'Application_FieldValidationException';
const RESOURCE = 'resource';

/** The company and set a resource names; 400 naming `resource` when it names none. */
function subscribedResource(model: EdmModel, value: StoredValue | undefined): SubscriptionResource {
  if (typeof value !== 'string' || value === '') {
    throw new BodyValidationError(FIELD_ERROR, `The field '${RESOURCE}' must name a company's collection, such as companies(<id>)/<set>.`, RESOURCE);
  }
  const parsed = parseSubscriptionResource(model, value);
  if (typeof parsed === 'string') throw new BodyValidationError(FIELD_ERROR, parsed, RESOURCE);
  return parsed;
}

/** 403 unless the caller has a grant in the resource's company (§11) and may read its set there (§3). */
function authorizeResource(user: Principal, resource: SubscriptionResource): void {
  const granted = user.grants.get(resource.companyId);
  if (granted === undefined || !user.companies.has(resource.companyId)) throw new CompanyAccessDeniedError();
  if (!allows(granted, resource.type, 'read')) throw new PermissionDeniedError(`TableData ${resource.type.name}`, 'Read', requiredSet(resource.type, 'read') ?? 'SUPER');
}

/** expirationDateTime of a subscription created or renewed now, in stored form. */
function expiry(model: EdmModel): string {
  return new Date(Date.now() + model.service.webhooks.subscriptionLifetimeMs).toISOString();
}

/** The checks of one write of a change subscription, before its transaction opens. */
async function checkChangeSubscription(ctx: BeforeWriteContext, type: EntityType, rows: CurrentRowReader): Promise<void> {
  const { changes, services } = ctx;
  const { model } = services;
  if (ctx.op === 'delete') return;
  let url: StoredValue | undefined = changes['notificationUrl'];
  if (ctx.op === 'create') {
    const resource = subscribedResource(model, changes[RESOURCE]);
    authorizeResource(ctx.user, resource);
    changes[type.key.name] = randomBytes(16).toString('hex');
    changes['companyId'] = resource.companyId;
  } else {
    const current = ctx.key === undefined ? undefined : await rows(type, ctx.key);
    if (current === undefined) return; // the write answers 404
    if (RESOURCE in changes) {
      const resource = subscribedResource(model, changes[RESOURCE]);
      const was = parseSubscriptionResource(model, String(current[RESOURCE]));
      if (typeof was === 'string' || was.type !== resource.type || resource.companyId !== String(current['companyId']).toLowerCase()) {
        throw new BodyValidationError(FIELD_ERROR, `The ${RESOURCE} of a subscription cannot change (it is '${String(current[RESOURCE])}'); create another subscription for '${String(changes[RESOURCE])}'.`, RESOURCE);
      }
      delete changes[RESOURCE]; // the same collection: the text the client first wrote stays
    }
    if (!('notificationUrl' in changes)) url = current['notificationUrl'] as StoredValue;
  }
  const target = notificationUrl(url);
  await checkNotificationTarget(services.outbound, target);
  await validationHandshake(services.outbound, target, services.callTimeoutMs);
  changes['expirationDateTime'] = expiry(model);
}

/** The limits, in the create's transaction. */
async function checkLimits(ctx: ValidateWriteContext, model: EdmModel, type: EntityType): Promise<void> {
  const scope = type.ownerScope;
  if (ctx.op !== 'create' || scope === undefined) return;
  await checkSubscriptionLimits(ctx.db, model, String(ctx.after[scope.companyProperty.name]), String(ctx.after[scope.userProperty.name]));
}

/**
 * The framework's hook module of the change subscription type, when the model has one; `rows` reads the
 * row a PATCH addresses (current-row.ts).
 */
export function changeSubscriptionHooks(model: EdmModel, rows: CurrentRowReader): readonly EntityHooks[] {
  const type = model.changeSubscriptionType;
  if (type === undefined) return [];
  return [{ entityType: type.name, beforeWrite: (ctx) => checkChangeSubscription(ctx, type, rows), validateWrite: (ctx) => checkLimits(ctx, model, type) }];
}
