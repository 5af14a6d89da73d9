/**
 * Which entity types keep their entity JSON in their rows where the engine keeps it
 * (EngineCapabilities.storedEntityJson: db/postgres/postgres-entity-json.ts, db/sqlite/sqlite-entity-json.ts): the DDL adds the column
 * for them, the planner reads it (query/plan-entity-json.ts).
 */
import type { EntityType } from './model.js';

/** Every type but those with media properties, whose link annotations name the URL the request came to. */
export function keepsEntityJson(type: EntityType): boolean {
  return !type.properties.some((p) => p.storage.kind === 'media');
}
