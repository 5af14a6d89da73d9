/**
 * Checks of entity-change subscriptions (conventions §12): a subscribable set is company-scoped and
 * has the autoModified `lastModifiedDateTime` that a `collection` notification filters on; the type
 * service.json names for the subscriptions endpoint is global, keyed by a string, owner-scoped, signed,
 * and has the properties the framework fills and the delivery reads; an owner scope names a user and a
 * company property of a global type, and no navigation leads into an owner-scoped type; the type of
 * webhookSupportedResources is global, read-only and keyed by `resource`.
 */
import { isStored, propertyNames, propertyOf, type MetadataIndex, type Report } from './metadata-index.js';
import type { EntityFile, MetadataDocument } from './metadata-format.js';
import { chooseFrom } from './suggest-name.js';
import { refuseNavigationsInto } from './check-entity-options.js';

/** The property a `collection` entry's $filter names (Business Central's). */
export const CHANGE_STAMP_PROPERTY = 'lastModifiedDateTime';

/** The key of the webhookSupportedResources type: the set's name (Business Central's `resource`). */
export const WEBHOOK_RESOURCE_KEY = 'resource';

/** The properties (name → type) the framework writes and reads on the change subscription type. */
export const CHANGE_SUBSCRIPTION_PROPERTIES: Readonly<Record<string, string>> = {
  subscriptionId: 'Edm.String',
  notificationUrl: 'Edm.String',
  resource: 'Edm.String',
  clientState: 'Edm.String',
  userId: 'Edm.String',
  companyId: 'Edm.Guid',
  expirationDateTime: 'Edm.DateTimeOffset',
  lastModifiedDateTime: 'Edm.DateTimeOffset',
};

function checkSubscribable(document: MetadataDocument<EntityFile>, report: Report): void {
  const { file, doc } = document;
  if (doc.subscribable !== true) return;
  if (doc.scope !== 'company') {
    report({ file, pointer: '/subscribable', message: `Change subscriptions name a company's collection, but ${doc.name} is global.`, fix: 'remove "subscribable", or make the type company-scoped.' });
  }
  const stamp = propertyOf(doc, CHANGE_STAMP_PROPERTY);
  if (stamp === undefined || stamp.type !== 'Edm.DateTimeOffset' || stamp.autoModified !== true) {
    report({
      file,
      pointer: '/subscribable',
      message: `A subscribable type needs an autoModified Edm.DateTimeOffset property "${CHANGE_STAMP_PROPERTY}" (a collection notification filters on it).`,
      fix: `add {"name": "${CHANGE_STAMP_PROPERTY}", "type": "Edm.DateTimeOffset", "nullable": false, "writable": "never", "autoModified": true}.`,
    });
  }
}

function checkOwnerScope(index: MetadataIndex, document: MetadataDocument<EntityFile>, report: Report): void {
  const { file, doc } = document;
  if (doc.ownerScope === undefined) return;
  if (doc.scope !== 'global') {
    report({ file, pointer: '/ownerScope', message: 'An owner scope applies to global types only.', fix: 'remove "ownerScope", or make the type global.' });
  }
  const wanted: readonly [string, string, string][] = [
    ['userProperty', doc.ownerScope.userProperty, 'Edm.String'],
    ['companyProperty', doc.ownerScope.companyProperty, 'Edm.Guid'],
  ];
  for (const [member, name, type] of wanted) {
    const property = propertyOf(doc, name);
    if (property === undefined || property.type !== type || !isStored(property)) {
      report({ file, pointer: `/ownerScope/${member}`, message: `The owner scope's ${member} "${name}" must be a stored ${type} property of ${doc.name}.`, fix: `${chooseFrom(name, propertyNames(doc, (p) => p.type === type))}.` });
    }
  }
  refuseNavigationsInto(index, doc.name, 'an owner scope', "other users' rows", report);
}

function checkChangeSubscriptionType(index: MetadataIndex, report: Report): void {
  const { file, doc } = index.files.service;
  const name = doc.changeSubscriptionEntityType;
  if (name === undefined) return;
  const entity = index.entityByName.get(name);
  if (entity === undefined) {
    report({ file, pointer: '/changeSubscriptionEntityType', message: `No entity type "${name}" is declared.`, fix: `${chooseFrom(name, [...index.entityByName.keys()])}.` });
    return;
  }
  const e = entity.doc;
  const problem = (pointer: string, message: string, fix: string): void => report({ file: entity.file, pointer, message: `${name} (service.json "changeSubscriptionEntityType") ${message}`, fix });
  if (e.scope !== 'global') problem('/scope', 'must be global (the subscriptions endpoint is not company-scoped).', 'set "scope" to "global".');
  for (const [property, type] of Object.entries(CHANGE_SUBSCRIPTION_PROPERTIES)) {
    const found = propertyOf(e, property);
    if (found === undefined || found.type !== type || !isStored(found)) problem('/properties', `needs a stored property "${property}" of type ${type}.`, found === undefined ? 'add it.' : `change its type to ${type}.`);
  }
  if (e.key !== 'subscriptionId') problem('/key', 'must be keyed by "subscriptionId".', 'set "key" to "subscriptionId".');
  if (e.ownerScope?.userProperty !== 'userId' || e.ownerScope.companyProperty !== 'companyId') {
    problem('/ownerScope', 'must be owner-scoped by userId and companyId (callers see their own subscriptions, SUPER those of its companies).', 'add "ownerScope": {"userProperty": "userId", "companyProperty": "companyId"}.');
  }
  if (e.secret === undefined) problem('', 'declares no secret, and notifications are signed with a per-subscription secret.', 'add "secret": {"prefix": "whsec_", "bytes": 32}.');
  if (!index.files.entities.some((d) => d.doc.subscribable === true)) {
    report({ file, pointer: '/changeSubscriptionEntityType', message: 'No entity type is subscribable, so the subscriptions endpoint would accept nothing.', fix: 'add "subscribable": true to the entity files clients may subscribe to.' });
  }
}

/** The webhookSupportedResources type: global, read-only, keyed by a string `resource` the service fills. */
function checkWebhookResourceType(index: MetadataIndex, report: Report): void {
  const { file, doc } = index.files.service;
  const name = doc.webhookResourceEntityType;
  if (name === undefined) return;
  const entity = index.entityByName.get(name);
  if (entity === undefined) {
    report({ file, pointer: '/webhookResourceEntityType', message: `No entity type "${name}" is declared.`, fix: `${chooseFrom(name, [...index.entityByName.keys()])}.` });
    return;
  }
  if (doc.changeSubscriptionEntityType === undefined) {
    report({ file, pointer: '/webhookResourceEntityType', message: 'Subscribable resources are listed for the entity-change subscriptions, but service.json names no "changeSubscriptionEntityType".', fix: 'add "changeSubscriptionEntityType", or remove "webhookResourceEntityType".' });
  }
  const e = entity.doc;
  const problem = (pointer: string, message: string, fix: string): void => report({ file: entity.file, pointer, message: `${name} (service.json "webhookResourceEntityType") ${message}`, fix });
  if (e.scope !== 'global') problem('/scope', 'must be global (webhookSupportedResources is not company-scoped).', 'set "scope" to "global".');
  const key = propertyOf(e, e.key);
  if (e.key !== WEBHOOK_RESOURCE_KEY || key === undefined || key.type !== 'Edm.String' || !isStored(key)) problem('/key', `must be keyed by a stored Edm.String property "${WEBHOOK_RESOURCE_KEY}" (the set's name).`, `set "key" to "${WEBHOOK_RESOURCE_KEY}".`);
  const others = e.properties.filter((p) => p.name !== WEBHOOK_RESOURCE_KEY && isStored(p) && p.nullable === false && p.default === undefined && p.autoModified !== true);
  if (others.length > 0) problem('/properties', `has required properties the service cannot fill (${others.map((p) => p.name).join(', ')}).`, 'make them nullable, give them a default, or remove them.');
  const c = e.capabilities;
  if (c?.insertable !== false || c.updatable !== false || c.deletable !== false) problem('/capabilities', 'is filled by the service from the model, so clients may only read it.', 'set "capabilities": {"insertable": false, "updatable": false, "deletable": false}.');
}

/** Runs the subscription checks of the whole model. */
export function checkSubscriptions(index: MetadataIndex, report: Report): void {
  for (const document of index.files.entities) {
    checkSubscribable(document, report);
    checkOwnerScope(index, document, report);
  }
  checkChangeSubscriptionType(index, report);
  checkWebhookResourceType(index, report);
}
