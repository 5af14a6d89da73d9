/**
 * The caller as every layer sees it once authenticated: the user and the permission sets it holds
 * in each company.
 */

/** Who is calling: an authenticated user with permission sets per company (conventions §7). */
export interface Principal {
  readonly userId: string;
  /** Company ids the caller has any grant in. */
  readonly companies: ReadonlySet<string>;
  /** Company used by unscoped URLs when the request names none (conventions §1). */
  readonly defaultCompany?: string;
  /** Permission sets per company id. */
  readonly grants: ReadonlyMap<string, ReadonlySet<string>>;
}
