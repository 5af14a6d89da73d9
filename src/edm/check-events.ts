/**
 * Cross-file checks of business events (metadata/events/) and of the service settings that publish
 * them: file names, unique name/version pairs, the entity type and key field each event names, and
 * the definition and subscription entity types with the properties the framework fills and reads.
 */
import path from 'node:path';
import { isStored, propertyNames, propertyOf, type MetadataIndex, type Report } from './metadata-index.js';
import type { EntityFile, EventFile, MetadataDocument } from './metadata-format.js';
import { jsonPointer } from './model-error.js';
import { chooseFrom } from './suggest-name.js';

/** The properties (name → type) the framework writes into the definition type at start-up (conventions §6). */
export const DEFINITION_PROPERTIES: Readonly<Record<string, string>> = {
  appId: 'Edm.Guid',
  name: 'Edm.String',
  eventVersion: 'Edm.String',
  displayName: 'Edm.String',
  description: 'Edm.String',
  category: 'Edm.String',
  payload: 'Edm.String',
  appName: 'Edm.String',
  appPublisher: 'Edm.String',
  appVersion: 'Edm.String',
};

/** The properties (name → type) the delivery worker reads from the subscription type (conventions §6). */
export const SUBSCRIPTION_PROPERTIES: Readonly<Record<string, string>> = {
  companyId: 'Edm.Guid',
  appId: 'Edm.Guid',
  eventName: 'Edm.String',
  eventVersion: 'Edm.String',
  notificationUrl: 'Edm.String',
  clientState: 'Edm.String',
  subscriptionState: 'Edm.String or an enum with the member "Active"',
};

/** true when a property's type is the one `needed` describes (subscriptionState: a string or an enum with "Active"). */
function typeFits(index: MetadataIndex, type: string, needed: string): boolean {
  if (type === needed) return true;
  if (!needed.startsWith('Edm.String or an enum')) return false;
  return type === 'Edm.String' || index.enumByName.get(type)?.doc.members.includes('Active') === true;
}

function checkEventFile(index: MetadataIndex, document: MetadataDocument<EventFile>, report: Report): void {
  const { file, doc } = document;
  const base = path.basename(file, '.json');
  if (base !== doc.name && base !== `${doc.name}.${doc.version}`) {
    report({ file, pointer: '/name', message: `The event "${doc.name}" version ${doc.version} is in a file named "${base}.json".`, fix: `rename the file to ${doc.name}.json (or ${doc.name}.${doc.version}.json for a later version).` });
  }
  const entity = index.entityByName.get(doc.entityType);
  if (entity === undefined) {
    report({ file, pointer: '/entityType', message: `No entity type "${doc.entityType}" is declared.`, fix: `${chooseFrom(doc.entityType, [...index.entityByName.keys()])}.` });
  } else if (entity.doc.scope !== 'company') {
    report({ file, pointer: '/entityType', message: `Events are delivered per company, but ${doc.entityType} is global.`, fix: 'name a company-scoped entity type.' });
  }
  const names = new Set<string>();
  doc.payload.forEach((field, position) => {
    if (names.has(field.name) || field.name === 'url') {
      report({ file, pointer: jsonPointer('payload', position, 'name'), message: `The payload field "${field.name}" is ${field.name === 'url' ? 'reserved (notifications add the entity URL as "url")' : 'declared twice'}.`, fix: 'rename it.' });
    }
    names.add(field.name);
  });
  const key = doc.payload.find((field) => field.name === doc.keyField);
  if (key === undefined) {
    report({ file, pointer: '/keyField', message: `"${doc.keyField}" is not a payload field.`, fix: `${chooseFrom(doc.keyField, doc.payload.map((f) => f.name))}.` });
  } else if (key.type !== 'Guid' && key.type !== 'Code' && key.type !== 'Text') {
    report({ file, pointer: '/keyField', message: `The key field "${doc.keyField}" has type ${key.type}; entity keys are GUIDs or codes.`, fix: 'give it type Guid (or Code).' });
  }
}

/** An entity type named in service.json must exist, be global and have the properties the framework uses. */
function checkEventType(
  index: MetadataIndex,
  member: 'eventDefinitionEntityType' | 'eventSubscriptionEntityType',
  needed: Readonly<Record<string, string>>,
  report: Report,
): MetadataDocument<EntityFile> | undefined {
  const { file, doc } = index.files.service;
  const name = doc[member];
  if (name === undefined) return undefined;
  const entity = index.entityByName.get(name);
  if (entity === undefined) {
    report({ file, pointer: `/${member}`, message: `No entity type "${name}" is declared.`, fix: `${chooseFrom(name, [...index.entityByName.keys()])}.` });
    return undefined;
  }
  if (entity.doc.scope !== 'global') {
    report({ file: entity.file, pointer: '/scope', message: `${name} is named in service.json "${member}" and must be global (event administration is not company-scoped).`, fix: 'set "scope" to "global".' });
  }
  for (const [property, type] of Object.entries(needed)) {
    const found = propertyOf(entity.doc, property);
    if (found === undefined || !typeFits(index, found.type, type) || !isStored(found)) {
      report({
        file: entity.file,
        pointer: '/properties',
        message: `${name} (service.json "${member}") needs a stored property "${property}" of type ${type}.`,
        fix: found === undefined ? `add it${propertyNames(entity.doc).length > 0 ? ` (${chooseFrom(property, propertyNames(entity.doc))})` : ''}.` : `change its type to ${type}.`,
      });
    }
  }
  return entity;
}

/** Runs the event checks of the whole model. */
export function checkEvents(index: MetadataIndex, report: Report): void {
  const { file, doc } = index.files.service;
  const seen = new Map<string, string>();
  for (const document of index.files.events) {
    checkEventFile(index, document, report);
    const key = `${document.doc.name}@${document.doc.version}`;
    const other = seen.get(key);
    if (other !== undefined) {
      report({ file: document.file, pointer: '/version', message: `The event ${document.doc.name} version ${document.doc.version} is already declared in ${other}.`, fix: 'raise the version, or remove one of the two files.' });
    }
    seen.set(key, document.source);
  }
  if (index.files.events.length > 0 && doc.app === undefined) {
    report({ file, pointer: '', message: 'Business events are declared in events/, but no app identity publishes them.', fix: 'add "app": {"id": "<guid>", "name": "...", "publisher": "...", "version": "1.0.0.0"}.' });
  }
  const definition = checkEventType(index, 'eventDefinitionEntityType', DEFINITION_PROPERTIES, report);
  const subscription = checkEventType(index, 'eventSubscriptionEntityType', SUBSCRIPTION_PROPERTIES, report);
  if ((doc.eventDefinitionEntityType === undefined) !== (doc.eventSubscriptionEntityType === undefined)) {
    report({ file, pointer: '', message: 'Event definitions and subscriptions go together: service.json names only one of the two types.', fix: 'add both "eventDefinitionEntityType" and "eventSubscriptionEntityType", or neither.' });
  }
  if ((definition !== undefined || subscription !== undefined) && doc.app === undefined) {
    report({ file, pointer: '', message: 'The event entity types need the app identity the events are published under.', fix: 'add "app": {"id": "<guid>", "name": "...", "publisher": "...", "version": "1.0.0.0"}.' });
  }
  if (definition !== undefined && (definition.doc.capabilities?.insertable !== false || definition.doc.capabilities.updatable !== false || definition.doc.capabilities.deletable !== false)) {
    report({ file: definition.file, pointer: '/capabilities', message: 'Event definitions are written by the service from events/; clients must not change them.', fix: 'set "capabilities": {"insertable": false, "updatable": false, "deletable": false}.' });
  }
  if (subscription !== undefined && subscription.doc.secret === undefined) {
    report({ file: subscription.file, pointer: '', message: 'Notifications are signed with a per-subscription secret, and the subscription type declares none.', fix: 'add "secret": {"prefix": "whsec_", "bytes": 32}.' });
  }
}
