/**
 * Permission sets (conventions §7): which set guards an entity is written in its metadata; SUPER may
 * do everything; EVENTS guards webhook subscriptions; a write set implies the matching read.
 */
import type { EdmModel, EntityType } from '../edm/model.js';

/** Everything, in every company it is granted in. */
export const SUPER = 'SUPER';
/** Webhook subscriptions. */
export const EVENTS = 'EVENTS';

/** The permission sets that can be granted: those the model names, plus EVENTS and SUPER. */
export function knownPermissionSets(model: EdmModel): string[] {
  const sets = new Set<string>([SUPER, EVENTS]);
  for (const t of model.entityTypes) {
    if (t.permissions !== undefined) {
      sets.add(t.permissions.read);
      sets.add(t.permissions.write);
    }
    if (t.rowScope !== undefined) sets.add(t.rowScope.permission);
  }
  return [...sets].sort();
}

/** The set needed to read or write `type`; undefined = any access to the company (read) or SUPER (write). */
export function requiredSet(type: EntityType, access: 'read' | 'write'): string | undefined {
  if (type.permissions === undefined) return access === 'read' ? undefined : SUPER;
  return access === 'read' ? type.permissions.read : type.permissions.write;
}

/** true when the sets granted in a company allow the access. */
export function allows(granted: ReadonlySet<string>, type: EntityType, access: 'read' | 'write'): boolean {
  if (granted.has(SUPER)) return true;
  const needed = requiredSet(type, access);
  if (needed === undefined) return true;
  if (granted.has(needed)) return true;
  return access === 'read' && type.permissions !== undefined && granted.has(type.permissions.write);
}
