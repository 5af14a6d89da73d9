/**
 * Decides the company of a request (conventions §1, §11): the `companies(<id>)` prefix, or for unscoped
 * URLs the `company=<id or name>` option, the caller's default company, the caller's only company.
 */
import { CompanyAccessDeniedError, ODataError } from '../errors/odata-error.js';
import { GUID } from '../edm/values.js';
import { compile } from '../sql/compile.js';
import { col, eq, param, select } from '../sql/build.js';
import type { CompanyRef } from '../uri/bound-path.js';
import type { Principal } from '../auth/principal.js';
import type { ServiceContext } from './service-context.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import type { CompanyIdentity } from '../auth/access-cache.js';

export type { CompanyIdentity };

/** A company by id or name, if it exists (from the access cache, else the database). */
export function findCompany(svc: ServiceContext, idOrName: string): MaybePromise<CompanyIdentity | undefined> {
  return andThen(
    svc.access.company(idOrName, () => andThen(loadCompany(svc, idOrName), (found) => found ?? null)),
    (found) => found ?? undefined,
  );
}

function loadCompany(svc: ServiceContext, idOrName: string): MaybePromise<CompanyIdentity | undefined> {
  const c = svc.model.company;
  const byId = GUID.test(idOrName);
  const query = select({
    columns: [{ expr: col('c', c.key.name), alias: 'id' }, { expr: col('c', 'name'), alias: 'name' }],
    from: { kind: 'table', table: c.table, alias: 'c' },
    where: eq(col('c', byId ? c.key.name : 'name'), param(byId ? idOrName.toLowerCase() : idOrName)),
  });
  return andThen(svc.engine.db.get(compile(query, svc.engine.dialect)), (row) => (row === undefined ? undefined : { id: String(row['id']), name: String(row['name']) }));
}

/** The company if it exists and the caller has a grant in it. */
function accessible(svc: ServiceContext, principal: Principal, idOrName: string): MaybePromise<CompanyIdentity | undefined> {
  return andThen(findCompany(svc, idOrName), (found) => (found !== undefined && principal.companies.has(found.id) ? found : undefined));
}

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
): MaybePromise<CompanyIdentity | undefined> {
  if (ref.kind === 'none') return undefined;
  if (ref.kind === 'path' || companyOption !== undefined) {
    return andThen(accessible(svc, principal, ref.kind === 'path' ? ref.id : (companyOption as string)), (found) => {
      if (found === undefined) throw new CompanyAccessDeniedError();
      return found;
    });
  }
  const own = principal.defaultCompany === undefined ? undefined : accessible(svc, principal, principal.defaultCompany);
  return andThen(own, (company) => {
    if (company !== undefined) return company;
    const [only] = principal.companies;
    const single = principal.companies.size === 1 && only !== undefined ? findCompany(svc, only) : undefined;
    return andThen(single, (found) => {
      if (found !== undefined) return found;
      const service = svc.defaultCompany === undefined ? undefined : accessible(svc, principal, svc.defaultCompany);
      return andThen(service, (last) => {
        if (last !== undefined) return last;
        throw new ODataError(
          400,
          'Internal_CompanyNotFound',
          'Cannot process the request because no company is chosen: you have access to several companies and no default one. Name a company with the query option ' +
            'company=<id or name>, or use the company-scoped URL companies(<companyId>)/<entitySet>; GET companies lists yours.',
        );
      });
    });
  });
}
