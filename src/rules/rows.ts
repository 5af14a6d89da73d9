/**
 * Helpers the rule modules share. The row types and enum members themselves are generated from
 * metadata/ into ./generated/rows.ts (`ecn-odata types`), stored form as the hooks see it.
 */
import { decodeODataName } from '../edm/encode-name.js';
import { ENTITY_TYPES } from './generated/rows.js';

/** The blank enum member ` `, as stored. */
export const BLANK = '_x0020_';

/** The business event a task activation raises (service-interface.md, Events). */
export const TASK_ACTIVATED_EVENT = 'EngChangeOrderTaskActivated';

/** Entity type names, as the tx helpers take them (from the generated names: a renamed type is a compile error here). */
export const TYPES = { ecn: ENTITY_TYPES.engChangeNotice, eco: ENTITY_TYPES.engChangeOrder, task: ENTITY_TYPES.engChangeOrderTask, predecessor: ENTITY_TYPES.engChangeOrderTaskPredecessor } as const;

/** true for a value a person would call empty: null, '' or the blank enum member. */
export function isBlank(value: unknown): boolean {
  return value === null || value === undefined || value === '' || value === BLANK || (typeof value === 'string' && value.trim() === '');
}

/** An encoded enum member as a person reads it (`Pending_x0020_Approval` → `Pending Approval`). */
export function shown(member: string): string {
  return decodeODataName(member);
}
