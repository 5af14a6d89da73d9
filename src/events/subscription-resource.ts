/**
 * The `resource` of an entity-change subscription (conventions §12): a company's collection of a
 * subscribable set, written relative to the service root (`companies(<id>)/engChangeNotices`), with the
 * root (`/api/v2.0/companies(<id>)/...`, with or without the leading slash, as Business Central writes
 * it), or as an absolute URL. Pure: the text in, the company and set out, or the reason it is refused.
 */
import type { EdmModel, EntityType } from '../edm/model.js';

/** What a resource names. */
export interface SubscriptionResource {
  /** The company's id, lower-case. */
  readonly companyId: string;
  readonly type: EntityType;
}

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** The path below the service root of `text`, or undefined when it is not one of the accepted forms. */
function relativePath(model: EdmModel, text: string): string | undefined {
  const root = model.service.serviceRoot.replace(/^\//, '');
  let path = text;
  if (/^[a-z][a-z0-9+.-]*:/i.test(text)) {
    try {
      const url = new URL(text);
      if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') return undefined;
      path = decodeURIComponent(url.pathname);
    } catch {
      return undefined;
    }
  }
  path = path.replace(/^\//, '');
  if (path.startsWith(`${root}/`)) return path.slice(root.length + 1);
  return /^[A-Za-z]/.test(path) && !path.includes('://') ? path : undefined;
}

/** The company and set `text` names; a string saying what is wrong otherwise. */
export function parseSubscriptionResource(model: EdmModel, text: string): SubscriptionResource | string {
  const forms = `companies(<id>)/<set> relative to the service root, ${model.service.serviceRoot}/companies(<id>)/<set>, or the absolute URL`;
  const path = relativePath(model, text);
  const match = path === undefined ? null : /^([A-Za-z][A-Za-z0-9]*)\(([^()/]*)\)\/([A-Za-z][A-Za-z0-9]*)$/.exec(path);
  if (match === null) return `The resource '${text}' is not a company's collection; write it as ${forms}.`;
  const [, companies, id, set] = match as unknown as [string, string, string, string];
  if (companies !== model.company.entitySet) return `The resource '${text}' does not start with ${model.company.entitySet}(<id>); write it as ${forms}.`;
  if (!GUID.test(id)) return `The company id '${id}' in the resource '${text}' is not a GUID.`;
  const type = model.entityTypeBySet.get(set);
  const subscribable = model.entityTypes.filter((t) => t.subscribable).map((t) => t.entitySet);
  if (type === undefined || !type.subscribable) {
    return `The resource '${text}' names '${set}', which ${type === undefined ? 'is not an entity set' : 'cannot be subscribed to'}; subscribable sets: ${subscribable.join(', ') || 'none'} (GET webhookSupportedResources lists them).`;
  }
  return { companyId: id.toLowerCase(), type };
}
