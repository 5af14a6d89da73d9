/**
 * A resource path resolved against the model (OData URL Conventions §4): which entity set, which
 * keys and navigations, and what the last segment addresses. Produced by `bindPath`, consumed by dispatch.
 */
import type { BoundAction, EntityType, NavigationProperty, Property } from '../edm/model.js';
import type { StoredValue } from '../edm/values.js';

/** How the company of a company-scoped request is given. */
export type CompanyRef =
  /** `/companies(<id>)/...` */
  | { readonly kind: 'path'; readonly id: string }
  /** An unscoped URL: resolved from `company=`, the caller's default, or the caller's only company. */
  | { readonly kind: 'unscoped' }
  /** A global entity set (e.g. `companies`): no company. */
  | { readonly kind: 'none' };

/** One property = value condition of a key predicate (stored form). */
export interface KeyCondition {
  readonly property: string;
  readonly value: StoredValue;
}

/** One step of a path: the root entity set, or a navigation from the previous step. */
export interface PathStep {
  readonly type: EntityType;
  /** The navigation that leads here; undefined for the root entity set. */
  readonly nav?: NavigationProperty;
  /** The key given in the URL, if any (stored form); undefined when the entity was named by an alternate key. */
  readonly key?: StoredValue;
  /**
   * The conditions of the URL's key predicate, whichever key it used: `[{id = key}]` for the key, one per
   * property for an alternate key (Core.AlternateKeys); undefined when the URL gave no key predicate.
   */
  readonly keyConditions?: readonly KeyCondition[];
  /** The step addresses one entity (a key was given, or the navigation is single-valued). */
  readonly single: boolean;
}

/** What the last segment addresses. */
export type PathTarget =
  | { readonly kind: 'collection' }
  | { readonly kind: 'entity' }
  | { readonly kind: 'count' }
  | { readonly kind: 'action'; readonly action: BoundAction }
  | { readonly kind: 'media'; readonly property: Property }
  | { readonly kind: 'property'; readonly property: Property; readonly value: boolean };

/** A bound resource path. */
export type BoundPath =
  | { readonly kind: 'serviceDocument' }
  | { readonly kind: 'metadata' }
  | {
      readonly kind: 'resource';
      readonly company: CompanyRef;
      readonly steps: readonly PathStep[];
      readonly target: PathTarget;
    };

/** The last step of a resource path. */
export function lastStep(path: Extract<BoundPath, { kind: 'resource' }>): PathStep {
  const step = path.steps[path.steps.length - 1];
  if (step === undefined) throw new Error('resource path without steps');
  return step;
}
