/**
 * Decides the company of a request (conventions §1, §11): the `companies(<id>)` prefix, or for unscoped
 * URLs the `company=<id or name>` option, the caller's default company, the caller's only company.
 */
import { CompanyAccessDeniedError, ODataError } from '../errors/odata-error.js';
import { GUID } from '../edm/values.js';
import { compile } from '../sql/compile.js';
import { col, eq, param, select } from '../sql/build.js';
import type { CompanyRef } from '../uri/bound-path.js';
import type { Principal } from './request.js';
import type { ServiceContext } from './service-context.js';
import type { CompanyIdentity } from '../auth/access-cache.js';

export type { CompanyIdentity };

function findCompany(svc: ServiceContext, idOrName: string): CompanyIdentity | undefined {
  return svc.access.company(idOrName, () => loadCompany(svc, idOrName) ?? null) ?? undefined;
}

function loadCompany(svc: ServiceContext, idOrName: string): CompanyIdentity | undefined {
  const c = svc.model.company;
  const byId = GUID.test(idOrName);
  const query = select({
    columns: [{ expr: col('c', c.key.name), alias: 'id' }, { expr: col('c', 'name'), alias: 'name' }],
    from: { kind: 'table', table: c.table, alias: 'c' },
    where: eq(col('c', byId ? c.key.name : 'name'), param(byId ? idOrName.toLowerCase() : idOrName)),
  });
  const row = svc.db.get(compile(query, svc.engine.dialect));
  return row === undefined ? undefined : { id: String(row['id']), name: String(row['name']) };
}

/** The company if it exists and the caller has a grant in it. */
function accessible(svc: ServiceContext, principal: Principal, idOrName: string): CompanyIdentity | undefined {
  const found = findCompany(svc, idOrName);
  return found !== undefined && principal.companies.has(found.id) ? found : undefined;
}

/** A company by id or name, if it exists. */
export { findCompany };

/**
 * The company a request works on, or undefined for global resources. A company the caller may not use
 * and one that does not exist answer alike (401 naming neither, conventions §11). Unscoped URLs take,
 * in order (conventions §1): the `company=` option, the caller's default company, the caller's only
 * company, and last the service's default company (`serve --default-company`) when the caller may use it.
 */
export function resolveCompany(
  svc: ServiceContext,
  ref: CompanyRef,
  principal: Principal,
  companyOption: string | undefined,
): CompanyIdentity | undefined {
  if (ref.kind === 'none') return undefined;
  if (ref.kind === 'path' || companyOption !== undefined) {
    const found = accessible(svc, principal, ref.kind === 'path' ? ref.id : (companyOption as string));
    if (found === undefined) throw new CompanyAccessDeniedError();
    return found;
  }
  const own = principal.defaultCompany === undefined ? undefined : accessible(svc, principal, principal.defaultCompany);
  if (own !== undefined) return own;
  if (principal.companies.size === 1) {
    const [only] = principal.companies;
    const found = only === undefined ? undefined : findCompany(svc, only);
    if (found !== undefined) return found;
  }
  const service = svc.defaultCompany === undefined ? undefined : accessible(svc, principal, svc.defaultCompany);
  if (service !== undefined) return service;
  throw new ODataError(
    400,
    'Internal_CompanyNotFound',
    'Cannot process the request because no company is chosen: you have access to several companies and no default one. Name a company with the query option ' +
      'company=<id or name>, or use the company-scoped URL companies(<companyId>)/<entitySet>; GET companies lists yours.',
  );
}
