/**
 * `@odata.context` URLs (OData JSON Format §10) and canonical entity URLs (URL Conventions §4.3.1).
 * Company-scoped requests keep their `companies(<id>)/` prefix; contained entities are addressed
 * through their container.
 */
import type { EntityType } from '../edm/model.js';
import type { StoredValue } from '../edm/values.js';
import type { PathStep } from '../uri/bound-path.js';

/** A key as it is written in a URL: bare for GUIDs and numbers, quoted for strings. */
export function keyLiteral(type: EntityType, key: StoredValue): string {
  const t = type.key.type;
  if (t.kind === 'primitive' && (t.name === 'Edm.String' || t.name === 'Edm.Date')) {
    return `'${encodeURIComponent(String(key).replace(/'/g, "''"))}'`;
  }
  return String(key);
}

/** `companies(<id>)/` or '' */
export function companyPrefix(companySet: string, companyId: string | undefined): string {
  return companyId === undefined ? '' : `${companySet}(${companyId})/`;
}

/**
 * The context path of the entities a path addresses: the containment chain when the last step is
 * contained, otherwise the target's entity set.
 */
export function contextPath(steps: readonly PathStep[], parentKeys: readonly StoredValue[]): string {
  const last = steps[steps.length - 1];
  if (last === undefined) return '';
  if (last.nav !== undefined && last.nav.containsTarget && steps.length >= 2) {
    const parent = steps[steps.length - 2] as PathStep;
    const parentKey = parentKeys[steps.length - 2];
    return `${contextPath(steps.slice(0, -1), parentKeys)}(${keyLiteral(parent.type, parentKey ?? null)})/${last.nav.name}`;
  }
  return last.type.entitySet;
}

/** The full `@odata.context` value. */
export function contextUrl(serviceRootUrl: string, prefix: string, path: string, select: readonly string[] | undefined, entity: boolean): string {
  const sel = select === undefined ? '' : `(${select.join(',')})`;
  return `${serviceRootUrl}/$metadata#${prefix}${path}${sel}${entity ? '/$entity' : ''}`;
}

/** The canonical URL of one entity: `<root>/<prefix><set>(<key>)`, or through its container when contained. */
export function entityUrl(serviceRootUrl: string, prefix: string, setPath: string, type: EntityType, key: StoredValue): string {
  return `${serviceRootUrl}/${prefix}${setPath}(${keyLiteral(type, key)})`;
}
