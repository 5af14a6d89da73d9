/**
 * What the read planners take (plan-read-request.ts, plan-aggregated-request.ts, plan-page.ts): plain data that the
 * pipeline reads once from the request (core/operation-context.ts), never the request or its headers.
 */
import type { EdmModel } from '../edm/model.js';
import type { QueryOptions } from '../uri/ast.js';
import type { Dialect } from '../sql/dialect.js';
import type { EntityLinkBase } from '../serialize/entity-json.js';
import { parsePrefer } from '../uri/parse-prefer.js';

/** The page size of a collection read, and the `Preference-Applied` answer when the client asked for one. */
export interface PageSize {
  readonly size: number;
  readonly preferenceApplied?: string;
}

/** A read's input. */
export interface ReadInput {
  readonly model: EdmModel;
  readonly dialect: Dialect;
  /** The query options as the operation received them (the core may have narrowed them for the caller). */
  readonly options: QueryOptions;
  /** The request's company; undefined for global resources. */
  readonly companyId: string | undefined;
  /** Link bases of the entities' URLs. */
  readonly links: EntityLinkBase;
  readonly page: PageSize;
  /** The request URL as sent, for next links: the service root, the resource path and the query string. */
  readonly url: { readonly serviceRootUrl: string; readonly path: string; readonly rawQuery: string };
  /** Whose plans these are: plans are kept per service (each has its own model and engine). */
  readonly planOwner: object;
}

/**
 * The page size of a collection read (OData Protocol §11.2.6.7): the service's, or the client's
 * `Prefer: odata.maxpagesize` up to the service's maximum (an invalid preference is ignored, RFC 7240).
 */
export function pageSizeOf(settings: { readonly pageSize: number; readonly maxPageSize: number }, prefer: string | undefined): PageSize {
  const preferred = prefer === undefined ? undefined : parsePrefer(prefer).preferences.maxPageSize;
  if (preferred === undefined || !(preferred > 0)) return { size: settings.pageSize };
  const size = Math.min(preferred, settings.maxPageSize);
  return { size, preferenceApplied: `odata.maxpagesize=${size}` };
}
