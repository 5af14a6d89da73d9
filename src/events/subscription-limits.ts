/**
 * The subscription limits of conventions §12: at most `limits.subscriptionsPerCompany` webhook
 * subscriptions in one company and `limits.subscriptionsPerUser` of one user in one company, entity-change
 * subscriptions (model `changeSubscriptionType`) and business-event ones (`eventTypes.subscription`)
 * counted together. Checked in the create's write transaction (validateWrite): writes take turns on
 * both engines, so two creates that race cannot both pass the count.
 */
import type { EdmModel, EntityType } from '../edm/model.js';
import { limitSetting } from '../edm/service-limits.js';
import { BusinessRuleError } from '../errors/odata-error.js';
import type { TxReader } from '../hooks/types.js';

/** One kind of webhook subscription of the model: its type and the properties naming its company and its user. */
export interface SubscriptionKind {
  readonly kind: 'change' | 'event';
  readonly type: EntityType;
  readonly company: string;
  readonly user: string;
}

/** The model's kinds of webhook subscriptions: entity-change ones (owner-scoped) and business-event ones (row-scoped). */
export function subscriptionKinds(model: EdmModel): SubscriptionKind[] {
  const out: SubscriptionKind[] = [];
  const change = model.changeSubscriptionType;
  if (change?.ownerScope !== undefined) out.push({ kind: 'change', type: change, company: change.ownerScope.companyProperty.name, user: change.ownerScope.userProperty.name });
  const event = model.eventTypes?.subscription;
  // The business event's subscriptions record their creator in the property that defaults to the current user.
  const creator = event?.properties.find((p) => p.default?.kind === 'currentUser');
  if (event?.rowScope !== undefined && creator !== undefined) out.push({ kind: 'event', type: event, company: event.rowScope.companyProperty.name, user: creator.name });
  return out;
}

/**
 * Throws BusinessRuleError (400, naming the setting) when one more subscription of `userId` in
 * `companyId` would pass a limit; call it before the new row is written.
 */
export async function checkSubscriptionLimits(db: TxReader, model: EdmModel, companyId: string, userId: string): Promise<void> {
  const { subscriptionsPerCompany: perCompany, subscriptionsPerUser: perUser } = model.service;
  let inCompany = 0;
  let ofUser = 0;
  for (const counted of subscriptionKinds(model)) {
    const rows = await db.find(counted.type.name, { [counted.company]: companyId });
    inCompany += rows.length;
    ofUser += rows.filter((row) => row[counted.user] === userId).length;
  }
  if (inCompany >= perCompany) {
    throw new BusinessRuleError(
      `The company has ${inCompany} webhook subscriptions (entity changes and business events together), the most this service allows (${limitSetting('subscriptionsPerCompany')}). Delete subscriptions that are no longer needed.`,
    );
  }
  if (ofUser >= perUser) {
    throw new BusinessRuleError(
      `User ${userId} has ${ofUser} webhook subscriptions in this company (entity changes and business events together), the most this service allows (${limitSetting('subscriptionsPerUser')}). Delete subscriptions that are no longer needed.`,
    );
  }
}
