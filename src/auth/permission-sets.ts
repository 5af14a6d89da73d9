/**
 * Permission sets (conventions §7): declared in service.json, and which set guards an entity is written
 * in its metadata (EVENTS guards webhook subscriptions through their row scope); SUPER, built in, may do
 * everything; a write set implies the matching read.
 */
import { BUILT_IN_PERMISSION_SET } from '../edm/check-permission-sets.js';
import type { EdmModel, EntityType } from '../edm/model.js';

/** Everything, in every company it is granted in (built in, never declared). */
export const SUPER = BUILT_IN_PERMISSION_SET;

/** The permission sets that can be granted: those service.json declares, plus SUPER. */
export function knownPermissionSets(model: EdmModel): string[] {
  return [...new Set([SUPER, ...model.permissionSets.map((set) => set.name)])].sort();
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
