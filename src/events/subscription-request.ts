/**
 * Checks of a subscription request that the model cannot express (conventions §6): the event it names
 * (app id, name and version of a declared event), and the notification URL (absolute http or https,
 * a host the operator's address policy allows).
 */
import type { BusinessEvent, EdmModel } from '../edm/model.js';
import { eventKey } from '../edm/model.js';
import type { StoredValue } from '../edm/values.js';
import { BodyValidationError } from '../errors/odata-error.js';
import { OutboundError, type OutboundHttp } from './outbound.js';

const FIELD_ERROR = 'Application_FieldValidationException';

function known(model: EdmModel): string {
  return model.events.map((e) => `${e.name} version '${e.version}'`).join(', ') || 'none';
}

/** The declared event a subscription names; 400 naming the field that does not match. */
export function subscribedEvent(model: EdmModel, appId: StoredValue | undefined, name: StoredValue | undefined, version: StoredValue | undefined): BusinessEvent {
  const app = model.app;
  if (app === undefined || appId !== app.id) {
    throw new BodyValidationError(FIELD_ERROR, `The appId '${String(appId)}' publishes no business events here; events are published by the app ${app?.id ?? '(none)'} (${app?.name ?? ''}).`, 'appId');
  }
  if (!model.events.some((e) => e.name === name)) {
    throw new BodyValidationError(FIELD_ERROR, `There is no business event '${String(name)}'. Known events: ${known(model)}.`, 'eventName');
  }
  const event = model.eventByKey.get(eventKey(String(name), String(version)));
  if (event === undefined) {
    throw new BodyValidationError(FIELD_ERROR, `The event '${String(name)}' has no version '${String(version)}'. Known events: ${known(model)}.`, 'eventVersion');
  }
  return event;
}

/** The notification URL: absolute, http or https, without credentials; 400 otherwise. */
export function notificationUrl(value: StoredValue | undefined): URL {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new BodyValidationError(FIELD_ERROR, `The notificationUrl '${String(value)}' is not an absolute URL.`, 'notificationUrl');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new BodyValidationError(FIELD_ERROR, `The notificationUrl must use http or https, not ${url.protocol.replace(/:$/, '')}.`, 'notificationUrl');
  }
  if (url.username !== '' || url.password !== '') {
    throw new BodyValidationError(FIELD_ERROR, 'The notificationUrl must not carry a user name or password; authenticate notifications with their signature.', 'notificationUrl');
  }
  return url;
}

/** Resolves the URL's host and applies the address policy; 400 when refused or unresolvable. */
export async function checkNotificationTarget(outbound: OutboundHttp, url: URL): Promise<void> {
  try {
    await outbound.checkDestination(url);
  } catch (e) {
    if (e instanceof OutboundError) throw new BodyValidationError(FIELD_ERROR, e.message, 'notificationUrl');
    throw e;
  }
}
