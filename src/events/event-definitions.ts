/**
 * The rows of the event definition type (externalbusinesseventdefinitions, conventions §6), written at
 * start-up from metadata/events: one per event and version, keyed by a GUID derived from (appId, name,
 * version) so it never changes; changed declarations are updated and removed ones deleted. Clients only
 * read the set (its capabilities are all false).
 */
import type { BusinessEvent, EdmModel, EntityType } from '../edm/model.js';
import type { StoredValue } from '../edm/values.js';
import type { ServiceContext } from '../core/service-context.js';
import { insertEntity } from '../store/insert-entity.js';
import { writeDelete, writeUpdate } from '../store/update-entity.js';
import { readRow } from '../store/resolve-path.js';
import { compile } from '../sql/compile.js';
import { planSelect } from '../query/plan-select.js';
import { nameUuid } from './name-uuid.js';

/** The id of a definition: a name-based GUID in the app's namespace. */
export function definitionId(appId: string, name: string, version: string): string {
  return nameUuid(appId, `${name}@${version}`);
}

/** The payload of a definition as Business Central publishes it: a JSON string of `[{Index, Name, Type}]`. */
export function payloadDefinition(event: BusinessEvent): string {
  return JSON.stringify(event.payload.map((field, index) => ({ Index: index, Name: field.name, Type: field.type })));
}

/** The stored values of one definition row. */
export function definitionValues(model: EdmModel, event: BusinessEvent): Map<string, StoredValue> {
  const app = model.app;
  if (app === undefined) throw new Error('event definitions need the app identity of service.json');
  return new Map<string, StoredValue>([
    ['id', definitionId(app.id, event.name, event.version)],
    ['appId', app.id],
    ['name', event.name],
    ['eventVersion', event.version],
    ['displayName', event.displayName],
    ['description', event.description],
    ['category', `${app.publisher}: ${event.category}`],
    ['payload', payloadDefinition(event)],
    ['appName', app.name],
    ['appPublisher', app.publisher],
    ['appVersion', app.version],
  ]);
}

function changed(type: EntityType, stored: Readonly<Record<string, unknown>>, values: ReadonlyMap<string, StoredValue>): Map<string, StoredValue> {
  const out = new Map<string, StoredValue>();
  for (const [name, value] of values) if (name !== type.key.name && stored[name] !== value) out.set(name, value);
  return out;
}

/** Brings the definition rows in line with metadata/events, in one transaction; returns what changed. */
export async function syncEventDefinitions(svc: ServiceContext): Promise<{ inserted: number; updated: number; deleted: number }> {
  const type = svc.model.eventTypes?.definition;
  const report = { inserted: 0, updated: 0, deleted: 0 };
  if (type === undefined || svc.model.app === undefined) return report;
  const now = new Date();
  await svc.engine.transaction(async (tx) => {
    const wanted = new Set<string>();
    for (const event of svc.model.events) {
      const values = definitionValues(svc.model, event);
      const id = String(values.get(type.key.name));
      wanted.add(id);
      const stored = await readRow(svc, tx, type, undefined, [{ property: type.key.name, value: id }]);
      if (stored === undefined) {
        await insertEntity(svc, tx, type, undefined, values, { userId: 'SYSTEM', now });
        report.inserted++;
        continue;
      }
      const changes = changed(type, stored, values);
      if (changes.size > 0) {
        await writeUpdate(svc, tx, type, undefined, stored, changes, now);
        report.updated++;
      }
    }
    for (const row of await tx.all(compile(planSelect({ type, companyId: undefined, conditions: [] }), svc.engine.dialect))) {
      const id = String(row[type.key.name]);
      if (wanted.has(id)) continue;
      await writeDelete(svc, tx, type, id);
      report.deleted++;
    }
  });
  return report;
}
