/**
 * The body of a business-event notification (conventions §6, Business Central's external business
 * events): `{initiatingUserAADObjectId, timestamp, companyName, companyId, eventName, eventVersion, appId,
 * clientState, payload}`, the payload holding the declared fields and `url`, the API URL of the entity
 * the event is about. Fixed once per subscriber at fan-out, so every retry sends the same bytes.
 */
import type { BusinessEvent, EdmModel } from '../edm/model.js';
import { companyPrefix, entityUrl } from '../serialize/context-url.js';
import { nameUuid } from './name-uuid.js';

/** What a notification is made of. */
export interface NotificationInput {
  readonly model: EdmModel;
  readonly event: BusinessEvent;
  readonly appId: string;
  readonly companyId: string;
  readonly companyName: string;
  /** The user whose request raised the event (null for rows written before users were recorded). */
  readonly userId: string | null;
  /** When the event was raised (ISO 8601). */
  readonly timestamp: string;
  readonly clientState: string | null;
  readonly payload: Readonly<Record<string, unknown>>;
  /** Public URL of the service root, e.g. `https://ecn.example.com/api/v2.0`. */
  readonly serviceRootUrl: string;
}

const NIL_GUID = '00000000-0000-0000-0000-000000000000';

/**
 * The initiating user as a GUID. The service has no Entra ID object ids, so it sends a stable GUID
 * derived from the app id and the user id: the same user always gets the same value.
 */
export function initiatingUserGuid(appId: string, userId: string | null): string {
  return userId === null ? NIL_GUID : nameUuid(appId, `user:${userId}`);
}

/** The JSON body of one notification. */
export function notificationBody(input: NotificationInput): string {
  const { event, model } = input;
  const key = input.payload[event.keyField];
  const url = entityUrl(input.serviceRootUrl, companyPrefix(model.company.entitySet, input.companyId), event.entityType.entitySet, event.entityType, typeof key === 'string' || typeof key === 'number' ? key : null);
  const payload: Record<string, unknown> = {};
  for (const field of event.payload) payload[field.name] = input.payload[field.name] ?? null;
  payload['url'] = url;
  return JSON.stringify({
    initiatingUserAADObjectId: initiatingUserGuid(input.appId, input.userId),
    timestamp: input.timestamp,
    companyName: input.companyName,
    companyId: input.companyId,
    eventName: event.name,
    eventVersion: event.version,
    appId: input.appId,
    clientState: input.clientState ?? '',
    payload,
  });
}
