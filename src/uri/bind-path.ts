/**
 * Resolves a parsed resource path against the model (OData URL Conventions §4): entity sets, key
 * predicates (typed to the key property, or to the properties of an alternate key), navigations,
 * `$count`, bound actions and media properties. Pure; errors are 404 for unknown resources and 400 for
 * malformed keys.
 */
import type { EdmModel, EntityType, NavigationProperty } from '../edm/model.js';
import { literalToStored, type StoredValue } from '../edm/values.js';
import { NotFoundError, UriSemanticError, UriSyntaxError, NotImplementedError } from '../errors/odata-error.js';
import type { KeyPredicate, PathSegment, ResourcePath } from './ast.js';
import type { BoundPath, CompanyRef, KeyCondition, PathStep, PathTarget } from './bound-path.js';

/** Binds a parsed path to the model. */
export function bindPath(model: EdmModel, path: ResourcePath): BoundPath {
  const segs = path.segments;
  const first = segs[0];
  if (first === undefined) return { kind: 'serviceDocument' };
  if (first.kind === 'metadata') {
    if (segs.length > 1) throw notFound(segs[1]);
    return { kind: 'metadata' };
  }
  if (first.kind !== 'identifier') throw notFound(first);

  let company: CompanyRef;
  let index = 0;
  const companySet = model.company.entitySet;
  const second = segs[1];
  if (first.name === companySet && first.key !== undefined && second?.kind === 'identifier' && second.name !== companySet) {
    const scopedType = model.entityTypeBySet.get(second.name);
    if (scopedType === undefined || scopedType.scope !== 'company') throw notFound(second);
    company = { kind: 'path', id: String(keyValue(model.company, first.key)) };
    index = 1;
  } else {
    const type = model.entityTypeBySet.get(first.name);
    if (type === undefined) throw notFound(first);
    company = type.scope === 'company' ? { kind: 'unscoped' } : { kind: 'none' };
  }

  const root = segs[index] as Extract<PathSegment, { kind: 'identifier' }>;
  const rootType = model.entityTypeBySet.get(root.name);
  if (rootType === undefined) throw notFound(root);
  const steps: PathStep[] = [stepFor(rootType, undefined, root.key)];
  let target: PathTarget = steps[0]?.single ? { kind: 'entity' } : { kind: 'collection' };

  for (let i = index + 1; i < segs.length; i++) {
    const seg = segs[i] as PathSegment;
    const prev = steps[steps.length - 1] as PathStep;
    const isLast = i === segs.length - 1;
    if (target.kind === 'property' && seg.kind === 'value' && !target.value && isLast) {
      target = { kind: 'property', property: target.property, value: true };
      continue;
    }
    if (target.kind !== 'collection' && target.kind !== 'entity') throw notAfter(seg, segs[i - 1]);
    switch (seg.kind) {
      case 'count':
        if (target.kind !== 'collection') throw notAfter(seg, segs[i - 1]);
        target = { kind: 'count' };
        break;
      case 'identifier': {
        if (!prev.single) throw notAfter(seg, segs[i - 1], 'a collection: address one entity by its key first');
        const nav = prev.type.navigationByName.get(seg.name);
        if (nav !== undefined && nav.exposed) {
          if (!nav.collection && seg.key !== undefined) throw new UriSyntaxError(`The single-valued navigation '${nav.name}' takes no key.`, 'path', seg.span.start);
          const step = stepFor(nav.target, nav, seg.key);
          steps.push(step);
          target = step.single ? { kind: 'entity' } : { kind: 'collection' };
          break;
        }
        const prop = prev.type.propertyByName.get(seg.name);
        if (prop === undefined) throw unknownMember(seg, prev.type);
        if (seg.key !== undefined) throw notFound(seg, prev.type);
        target = prop.storage.kind === 'media' ? { kind: 'media', property: prop } : { kind: 'property', property: prop, value: false };
        break;
      }
      case 'qualified': {
        if (!prev.single) throw notAfter(seg, segs[i - 1], 'a collection (actions bind to one entity)');
        const action = prev.type.actionByQualifiedName.get(seg.name);
        if (action === undefined) throw notAfter(seg, segs[i - 1]);
        if (!isLast) throw notAfter(segs[i + 1] as PathSegment, seg);
        target = { kind: 'action', action };
        break;
      }
      case 'value':
        throw notAfter(seg, segs[i - 1]);
      case 'ref':
        throw new NotImplementedError('Entity references ($ref) are not supported by this service.');
      case 'literalSegment':
        throw keyAsSegment(seg, segs[i - 1], prev);
      case 'metadata':
      case 'batch':
      case 'entity':
        throw notAfter(seg, segs[i - 1]);
      default:
        throw notFound(seg);
    }
  }
  return { kind: 'resource', company, steps, target };
}

function stepFor(type: EntityType, nav: NavigationProperty | undefined, key: KeyPredicate | undefined): PathStep {
  if (key === undefined) return { type, nav, single: nav !== undefined && !nav.collection };
  const alternate = alternateKeyOf(type, key);
  if (alternate !== undefined) return { type, nav, keyConditions: alternate, single: true };
  const value = keyValue(type, key);
  return { type, nav, key: value, keyConditions: [{ property: type.key.name, value }], single: true };
}

/** The 400 of a key literal that does not fit its property; `hint` says how the key is written. */
function invalidKey(type: EntityType, key: KeyPredicate, why: string, hint = `A key is written as a bare GUID, e.g. ${type.entitySet}(2f0c0a6e-1b2c-4d5e-8f90-0123456789ab).`): UriSyntaxError {
  return new UriSyntaxError(`Invalid key for '${type.entitySet}': ${why} ${hint}`, 'path', key.span.start);
}

/**
 * The conditions of a named key predicate whose names are exactly those of one of the type's alternate
 * keys, in any order (Core.AlternateKeys; URL Conventions 4.01 §4.3.1); undefined for any other predicate.
 */
function alternateKeyOf(type: EntityType, key: KeyPredicate): KeyCondition[] | undefined {
  if (key.kind !== 'named' || type.alternateKeys.length === 0) return undefined;
  const names = key.pairs.map((pair) => pair.name);
  const alternate = type.alternateKeys.find((props) => props.length === names.length && props.every((p) => names.includes(p.name)));
  if (alternate === undefined) return undefined;
  return alternate.map((property) => {
    const pair = key.pairs.find((candidate) => candidate.name === property.name);
    if (pair === undefined) throw new Error('alternate key pair vanished');
    if (pair.value.kind === 'aliasRef') throw new NotImplementedError('Parameter aliases in key predicates are not supported.');
    const r = literalToStored(pair.value, property);
    if (!r.ok || r.value === null) {
      const example = `${type.entitySet}(${alternate.map((p) => `${p.name}=${p.type.kind === 'primitive' && p.type.name === 'Edm.Guid' ? '<guid>' : "'<text>'"}`).join(',')})`;
      throw invalidKey(type, key, r.ok ? `null is not a value of the key property '${property.name}'.` : r.message, `Write the alternate key as ${example}.`);
    }
    return { property: property.name, value: r.value };
  });
}

/** How the keys of a type are written, for messages: `id`, and each alternate key as `(a=..,b=..)`. */
function keyForms(type: EntityType): string {
  const alternates = type.alternateKeys.map((props) => `${type.entitySet}(${props.map((p) => `${p.name}=<value>`).join(',')})`);
  return [`${type.entitySet}(<${type.key.name}>)`, `${type.entitySet}(${type.key.name}=<value>)`, ...alternates].join(' or ');
}

/** The stored value of a key predicate for a type's single key (`(v)` or `(id=v)`). */
export function keyValue(type: EntityType, key: KeyPredicate): StoredValue {
  let lit;
  if (key.kind === 'single') {
    lit = key.value;
  } else {
    const pair = key.pairs[0];
    if (key.pairs.length !== 1 || pair === undefined || pair.name !== type.key.name) {
      const alternates = type.alternateKeys.length === 0 ? `The key of '${type.entitySet}' is '${type.key.name}'` : `'${type.entitySet}' is addressed by its key '${type.key.name}' or an alternate key`;
      throw new UriSyntaxError(`${alternates}; write ${keyForms(type)}.`, 'path', key.span.start);
    }
    lit = pair.value;
  }
  if (lit.kind === 'aliasRef') throw new NotImplementedError('Parameter aliases in key predicates are not supported.');
  const r = literalToStored(lit, type.key);
  if (!r.ok || r.value === null) throw invalidKey(type, key, r.ok ? 'null is not a key' : r.message);
  return r.value;
}

function segmentText(seg: PathSegment | undefined): string {
  if (seg === undefined) return '';
  switch (seg.kind) {
    case 'identifier':
    case 'qualified':
      return seg.name;
    case 'count':
      return '$count';
    case 'value':
      return '$value';
    case 'ref':
      return '$ref';
    case 'metadata':
      return '$metadata';
    case 'batch':
      return '$batch';
    case 'entity':
      return '$entity';
    case 'literalSegment':
      return seg.text;
    default:
      return '';
  }
}

/** 404 for a name that is neither a navigation nor a property; an unqualified bound action gets its qualified name. */
function unknownMember(seg: Extract<PathSegment, { kind: 'identifier' }>, on: EntityType): NotFoundError {
  const action = on.actions.find((a) => a.name === seg.name);
  if (action === undefined) return notFound(seg, on);
  return new NotFoundError(`Resource not found for the segment '${seg.name}' on '${on.qualifiedName}': '${seg.name}' is a bound action; call it by its qualified name, POST .../${action.qualifiedName}.`);
}

/** A value segment (`engChangeNotices/<guid>`, OData 4.01 key-as-segment), which this service does not use: name it and show the key form. */
function keyAsSegment(seg: Extract<PathSegment, { kind: 'literalSegment' }>, prev: PathSegment | undefined, step: PathStep): NotFoundError {
  const after = segmentText(prev);
  const hint = step.single
    ? `'${after}' addresses one entity; name a navigation or property after it`
    : `address one entity with its key in parentheses: ${after}(${seg.text})`;
  return new NotFoundError(`Resource not found for the segment '${seg.text}' after '${after}': ${hint}.`);
}

function notFound(seg: PathSegment | undefined, on?: EntityType): NotFoundError {
  const where = on === undefined ? '' : ` on '${on.qualifiedName}'`;
  return new NotFoundError(`Resource not found for the segment '${segmentText(seg)}'${where}.`);
}

function notAfter(seg: PathSegment, prev: PathSegment | undefined, why?: string): UriSemanticError {
  return new UriSemanticError(
    `The URI segment '${segmentText(seg)}' is invalid after the segment '${segmentText(prev)}'${why === undefined ? '' : `: ${why}`}.`,
    'path',
  );
}
