/**
 * Decides the company of a request (conventions §1): the `companies(<id>)` prefix, or for unscoped
 * URLs the `company=<id or name>` option, the caller's default company, or the caller's only company.
 */
import { CompanyAccessDeniedError, ODataError, NotFoundError } from '../errors/odata-error.js';
import { GUID } from '../edm/values.js';
import { compile } from '../sql/compile.js';
import { sqliteDialect } from '../sql/sqlite-dialect.js';
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
  const row = svc.db.get(compile(query, sqliteDialect));
  return row === undefined ? undefined : { id: String(row['id']), name: String(row['name']) };
}

function allowed(principal: Principal, id: string): boolean {
  return principal.companies.has(id);
}

/** A company by id or name, if it exists. */
export { findCompany };

/** The company id a request works on, or undefined for global resources. */
export function resolveCompany(
  svc: ServiceContext,
  ref: CompanyRef,
  principal: Principal,
  companyOption: string | undefined,
): CompanyIdentity | undefined {
  if (ref.kind === 'none') return undefined;
  if (ref.kind === 'path') {
    const found = findCompany(svc, ref.id);
    if (found === undefined) throw new NotFoundError(`The company '${ref.id}' does not exist.`, 'Internal_CompanyNotFound');
    if (!allowed(principal, found.id)) throw new CompanyAccessDeniedError(found.name);
    return found;
  }
  const named = companyOption ?? principal.defaultCompany ?? svc.defaultCompany;
  if (named !== undefined) {
    const found = findCompany(svc, named);
    if (found === undefined) {
      throw new ODataError(400, 'Internal_CompanyNotFound', `The company '${named}' cannot be found. Name an existing company with the query option company=<id or name>.`);
    }
    if (!allowed(principal, found.id)) throw new CompanyAccessDeniedError(found.name);
    return found;
  }
  if (principal.companies.size === 1) {
    const [only] = principal.companies;
    const found = only === undefined ? undefined : findCompany(svc, only);
    if (found !== undefined) return found;
  }
  throw new ODataError(
    400,
    'Internal_CompanyNotFound',
    'Cannot process the request because the default company cannot be found. Name a company with the query option ' +
      'company=<id or name>, or use the company-scoped URL companies(<companyId>)/<entitySet>.',
  );
}
