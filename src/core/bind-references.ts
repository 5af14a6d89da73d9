/**
 * `<navigation>@odata.bind` in a POST, PATCH or PUT body (OData 4.01 JSON Format §8.5; Protocol
 * §11.4.2.1): a single-valued navigation bound to an existing entity by its URL. The URL (relative to
 * the service root, or absolute under it; in a batch `$<Content-ID>` first stands for the entity an
 * earlier request created) must address one entity of the navigation's target by key; the binding
 * then sets the reference fields the navigation joins on, exactly as if the body had sent them, so
 * the same validation, writability and reference checks apply. Binding collection-valued navigations
 * stays a 501 (the body validator's).
 */
import type { EntityType, NavigationProperty } from '../edm/model.js';
import { storedToJson } from '../edm/values.js';
import { BodyValidationError, NotImplementedError, ODataError } from '../errors/odata-error.js';
import { bindPath } from '../uri/bind-path.js';
import type { ServiceContext } from './service-context.js';

const BIND = '@odata.bind';

/** true when a body has a member naming a binding (the common body has none: nothing to copy). */
function hasBind(body: Record<string, unknown>): boolean {
  for (const name in body) if (name.endsWith(BIND)) return true;
  return false;
}

/**
 * The body with each single-valued `<nav>@odata.bind` replaced by the reference fields it sets;
 * other members as they are. Throws 400 for a URL that addresses no entity of the target type, or a
 * field the body also sends with another value.
 */
export function applyBindings(svc: ServiceContext, type: EntityType, body: unknown, serviceRootUrl: string): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !hasBind(body as Record<string, unknown>)) return body;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const name of Object.keys(out)) {
    if (!name.endsWith(BIND)) continue;
    const nav = type.navigationByName.get(name.slice(0, -BIND.length));
    if (nav === undefined || !nav.exposed || nav.collection) continue; // the validator answers these
    const value = out[name];
    delete out[name];
    for (const [field, v] of Object.entries(referenceFields(svc, nav, value, name, serviceRootUrl))) {
      if (field in out && out[field] !== v && String(out[field]).toLowerCase() !== String(v).toLowerCase()) {
        throw new BodyValidationError('BadRequest_InvalidOperation', `The body sets '${field}' to ${JSON.stringify(out[field])} and binds '${nav.name}' to an entity whose ${field} is ${JSON.stringify(v)}; send one of them.`, field);
      }
      out[field] = v;
    }
  }
  return out;
}

/** The reference fields (JSON values) a binding of `nav` to `url` sets. */
function referenceFields(svc: ServiceContext, nav: NavigationProperty, url: unknown, member: string, serviceRootUrl: string): Record<string, unknown> {
  const target = nav.target;
  if (typeof url !== 'string') throw new BodyValidationError('BadRequest', `'${member}' must be the URL of a ${target.name}, such as "${target.entitySet}(<key>)".`, member);
  if (nav.joins.some((j) => j.targetProperty !== target.key.name)) {
    throw new NotImplementedError(`'${member}' is not supported: ${nav.name} does not join on the key of ${target.name}; set its reference fields instead.`);
  }
  const root = `${serviceRootUrl}/`;
  const relative = url.startsWith(root) ? url.slice(root.length) : url.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(url) ? undefined : url;
  if (relative === undefined || relative.includes('?')) throw notAnEntity(member, url, target);
  let key: unknown;
  try {
    const bound = bindPath(svc.model, svc.paths.parse(`/${relative}`));
    const last = bound.kind === 'resource' ? bound.steps[bound.steps.length - 1] : undefined;
    if (bound.kind !== 'resource' || bound.target.kind !== 'entity' || last?.type !== target || last.key === undefined) throw notAnEntity(member, url, target);
    key = storedToJson(last.key, target.key.type, { ieee754Compatible: false });
  } catch (e) {
    if (e instanceof ODataError && e.status >= 500) throw e;
    throw e instanceof BodyValidationError ? e : notAnEntity(member, url, target, e instanceof Error ? e.message : undefined);
  }
  return Object.fromEntries(nav.joins.map((j) => [j.sourceProperty, key]));
}

function notAnEntity(member: string, url: string, target: EntityType, why?: string): BodyValidationError {
  return new BodyValidationError(
    'BadRequest',
    `'${member}' must be the URL of one ${target.name} by key, relative to the service root (such as "${target.entitySet}(<key>)"); '${url.length > 80 ? `${url.slice(0, 77)}...` : url}' is not${why === undefined ? '' : ` (${why})`}.`,
    member,
  );
}
