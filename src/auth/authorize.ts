/**
 * The one place that decides whether a principal may do what a request asks (conventions §7, §3):
 * read permission on every type the request reads (path steps, $expand, $filter/$orderby navigations),
 * write permission on the type it changes; for row-scoped global types (e.g. webhook subscriptions), the
 * type's permission set in the row's company. Owner-scoped types (model `ownerScope`) are the caller's own
 * rows, and SUPER's in its companies (restricted in core/handle.ts; the type's own checks say who may create what). Company access itself is checked when the company is resolved.
 */
import type { EntityType, OwnerScope, RowScope } from '../edm/model.js';
import { CompanyAccessDeniedError, PermissionDeniedError } from '../errors/odata-error.js';
import type { Principal } from './principal.js';
import type { ResourcePathBinding } from '../core/operation-context.js';
import type { QueryOptions } from '../uri/ast.js';
import { allows, requiredSet, SUPER } from './permission-sets.js';
import { touchedTypes } from './touched-types.js';

/** What the request does to its target. */
function targetAccess(path: ResourcePathBinding, method: string): 'read' | 'write' {
  if (method === 'GET' || method === 'HEAD') return 'read';
  return path.target.kind === 'count' || path.target.kind === 'property' ? 'read' : 'write';
}

/** The companies in which the principal may use a row-scoped type: those granting its permission set, or SUPER (sorted). */
export function rowScopeCompanies(principal: Principal, scope: RowScope): string[] {
  return [...principal.grants]
    .filter(([, sets]) => sets.has(SUPER) || sets.has(scope.permission))
    .map(([id]) => id)
    .sort();
}

/** The companies in which the principal holds SUPER (sorted): there it sees every row of an owner-scoped type. */
export function superCompanies(principal: Principal): string[] {
  return [...principal.grants]
    .filter(([id, sets]) => sets.has(SUPER) && principal.companies.has(id))
    .map(([id]) => id)
    .sort();
}

/** true when the principal may see and change a row of an owner-scoped type: its own, or any in a company where it holds SUPER. */
export function ownsRow(principal: Principal, scope: OwnerScope, row: Readonly<Record<string, unknown>>): boolean {
  if (row[scope.userProperty.name] === principal.userId) return true;
  const companyId = String(row[scope.companyProperty.name]);
  return principal.companies.has(companyId) && principal.grants.get(companyId)?.has(SUPER) === true;
}

/**
 * Throws unless the principal may create a row of a row-scoped type in `companyId`: 403 (company) without any
 * grant in the company (as for company-scoped URLs), 403 without the type's permission set there.
 */
export function authorizeRowCompany(principal: Principal, type: EntityType, companyId: string): void {
  if (type.rowScope === undefined) return;
  const granted = principal.grants.get(companyId);
  if (granted === undefined || !principal.companies.has(companyId)) throw new CompanyAccessDeniedError();
  if (!granted.has(SUPER) && !granted.has(type.rowScope.permission)) throw new PermissionDeniedError(`TableData ${type.name}`, 'Write', type.rowScope.permission);
}

function check(principal: Principal, companyId: string | undefined, type: EntityType, access: 'read' | 'write'): void {
  if (type.rowScope !== undefined) {
    // Rows are filtered to the caller's companies (handle.ts); without the set in any company there is nothing to see or do.
    if (rowScopeCompanies(principal, type.rowScope).length === 0) {
      throw new PermissionDeniedError(`TableData ${type.name}`, access === 'read' ? 'Read' : 'Write', type.rowScope.permission);
    }
    return;
  }
  if (type.scope !== 'company' || companyId === undefined) return; // global sets: readable by every authenticated user
  const granted = principal.grants.get(companyId) ?? new Set<string>();
  if (!allows(granted, type, access)) {
    throw new PermissionDeniedError(`TableData ${type.name}`, access === 'read' ? 'Read' : 'Write', requiredSet(type, access) ?? 'SUPER');
  }
}

/** Throws PermissionDeniedError (403) unless the principal may create rows of `type` (a child of a deep insert). */
export function authorizeCreate(principal: Principal, companyId: string | undefined, type: EntityType): void {
  check(principal, companyId, type, 'write');
  check(principal, companyId, type, 'read');
}

/** Throws PermissionDeniedError (403) unless the principal may perform the request. */
export function authorize(principal: Principal, companyId: string | undefined, path: ResourcePathBinding, options: QueryOptions, method: string): void {
  const last = path.steps[path.steps.length - 1];
  if (last === undefined) return;
  for (const step of path.steps.slice(0, -1)) check(principal, companyId, step.type, 'read');
  const access = targetAccess(path, method);
  check(principal, companyId, last.type, access);
  if (access === 'write' && path.target.kind !== 'action') check(principal, companyId, last.type, 'read');
  for (const t of touchedTypes(last.type, options)) check(principal, companyId, t, 'read');
}
