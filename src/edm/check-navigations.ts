/**
 * Checks of navigation properties: targets exist, joins name existing stored properties of matching
 * types, partners point back with mirrored joins, containment stays within one scope, and the
 * write-time flags (checkOnWrite, onTargetDelete) are only used where they have a meaning.
 */
import type { EntityFile, MetadataDocument, NavigationFile } from './metadata-format.js';
import { isKnownType, isReferential, isStored, navigationOf, propertyNames, propertyOf, type MetadataIndex, type Report } from './metadata-index.js';
import { jsonPointer } from './model-error.js';
import { chooseFrom } from './suggest-name.js';

/** Each join names a stored property on each side, of the same type. */
function checkJoins(index: MetadataIndex, file: string, source: EntityFile, target: EntityFile, navigation: NavigationFile, at: string, report: Report): void {
  navigation.joins.forEach((join, position) => {
    const joinAt = `${at}/joins/${position}`;
    const sides = [
      { side: 'source', type: source, name: join.source },
      { side: 'target', type: target, name: join.target },
    ] as const;
    const found = sides.map(({ side, type, name }) => {
      const property = propertyOf(type, name);
      if (property === undefined || !isStored(property)) {
        const what = property === undefined ? 'is not a property' : 'is computed or media, not a stored property';
        report({
          file,
          pointer: `${joinAt}/${side}`,
          message: `"${name}" ${what} of ${type.name}.`,
          fix: `${chooseFrom(name, propertyNames(type, isStored))}.`,
        });
        return undefined;
      }
      return property;
    });
    const [left, right] = found;
    if (left !== undefined && right !== undefined && left.type !== right.type && isKnownType(index, left.type) && isKnownType(index, right.type)) {
      report({
        file,
        pointer: joinAt,
        message: `${source.name}.${left.name} (${left.type}) cannot join ${target.name}.${right.name} (${right.type}).`,
        fix: 'join properties of the same type.',
      });
    }
  });
}

/** A single-valued navigation must reach at most one row: some join must hit the target's key or a unique property. */
function checkCardinality(file: string, target: EntityFile, navigation: NavigationFile, at: string, report: Report): void {
  // A join naming a missing property is reported by checkJoins already.
  if (navigation.collection || navigation.joins.some((join) => propertyOf(target, join.target) === undefined)) return;
  const hitsUnique = navigation.joins.some((join) => join.target === target.key || propertyOf(target, join.target)?.unique === true);
  if (!hitsUnique) {
    report({
      file,
      pointer: `${at}/joins`,
      message: `A single-valued navigation must join the key or a unique property of ${target.name}.`,
      fix: `join ${target.name}.${target.key} (or a property marked "unique"), or set "collection": true.`,
    });
  }
}

/** checkOnWrite and onTargetDelete only where they mean something; setNull needs nullable columns. */
function checkWriteFlags(file: string, source: EntityFile, target: EntityFile, navigation: NavigationFile, at: string, report: Report): void {
  if (navigation.checkOnWrite === true && navigation.collection) {
    report({
      file,
      pointer: `${at}/checkOnWrite`,
      message: 'checkOnWrite applies to single-valued navigations (a reference the source holds).',
      fix: 'remove "checkOnWrite".',
    });
  }
  if (navigation.onTargetDelete === undefined) return;
  if (!isReferential(navigation, target)) {
    report({
      file,
      pointer: `${at}/onTargetDelete`,
      message: 'onTargetDelete applies only to referential navigations (single-valued, one join on the target key).',
      fix: 'remove "onTargetDelete".',
    });
  } else if (navigation.onTargetDelete === 'setNull' && navigation.joins.some((join) => propertyOf(source, join.source)?.nullable === false)) {
    report({
      file,
      pointer: `${at}/onTargetDelete`,
      message: 'setNull needs nullable source properties, but a join property is not nullable.',
      fix: 'use "restrict" or "cascade", or make the join property nullable.',
    });
  }
}

/** true when the two join lists are each other's mirror image (source and target swapped). */
function mirrored(a: NavigationFile, b: NavigationFile): boolean {
  const key = (source: string, target: string): string => `${source}=${target}`;
  const left = a.joins.map((join) => key(join.source, join.target)).sort();
  const right = b.joins.map((join) => key(join.target, join.source)).sort();
  return left.length === right.length && left.every((entry, position) => entry === right[position]);
}

/** The partner exists on the target, points back, mirrors the joins, and fits the containment. */
function checkPartner(file: string, source: EntityFile, target: EntityFile, navigation: NavigationFile, at: string, report: Report): void {
  if (navigation.partner === undefined) return;
  const partner = navigationOf(target, navigation.partner);
  const fixOnTarget = `add "partner": "${navigation.name}" to ${target.name}.${navigation.partner}`;
  if (partner === undefined) {
    report({
      file,
      pointer: `${at}/partner`,
      message: `"${navigation.partner}" is not a navigation property of ${target.name}.`,
      fix: `${chooseFrom(navigation.partner, (target.navigationProperties ?? []).map((n) => n.name))}, or remove "partner".`,
    });
    return;
  }
  if (partner.target !== source.name || partner.partner !== navigation.name) {
    report({
      file,
      pointer: `${at}/partner`,
      message: `${target.name}.${partner.name} does not point back to ${source.name}.${navigation.name}.`,
      fix: `${fixOnTarget} (its target must be ${source.name}).`,
    });
    return;
  }
  // Report a pair's shared problems once, from the side whose qualified name sorts first.
  const firstSide = `${source.name}/${navigation.name}` < `${target.name}/${partner.name}`;
  if (firstSide && !mirrored(navigation, partner)) {
    report({
      file,
      pointer: `${at}/joins`,
      message: `The joins differ from those of the partner ${target.name}.${partner.name} (source and target swapped).`,
      fix: 'make both navigations join the same properties.',
    });
  }
  if (firstSide && (navigation.exposed ?? true) !== (partner.exposed ?? true)) {
    report({
      file,
      pointer: `${at}/exposed`,
      message: `Only one of ${source.name}.${navigation.name} and its partner is exposed.`,
      fix: 'expose both or neither.',
    });
  }
  if (navigation.containsTarget === true && (partner.containsTarget === true || partner.collection)) {
    report({
      file,
      pointer: `${at}/partner`,
      message: 'The partner of a containment navigation must be the single-valued way back to the parent.',
      fix: `make ${target.name}.${partner.name} single-valued without containsTarget.`,
    });
  }
  if (partner.containsTarget === true && navigation.onTargetDelete !== undefined && navigation.onTargetDelete !== 'cascade') {
    report({
      file,
      pointer: `${at}/onTargetDelete`,
      message: `${source.name} is contained in ${target.name}, so it is always deleted with its parent.`,
      fix: 'remove "onTargetDelete".',
    });
  }
}

/** Containment keeps a row in its parent's scope; a helper (unexposed) navigation cannot contain. */
function checkContainment(file: string, source: EntityFile, target: EntityFile, navigation: NavigationFile, at: string, report: Report): void {
  if (navigation.containsTarget !== true) return;
  if (source.scope !== target.scope) {
    report({
      file,
      pointer: `${at}/containsTarget`,
      message: `${source.name} (${source.scope}) cannot contain ${target.name} (${target.scope}): contained rows live in their parent's scope.`,
      fix: 'give both types the same scope, or drop "containsTarget".',
    });
  }
  if (navigation.exposed === false) {
    report({
      file,
      pointer: `${at}/exposed`,
      message: 'A containment navigation is the way to its targets, so it must be exposed.',
      fix: 'remove "exposed": false.',
    });
  }
}

/** Runs the navigation checks of one entity file. */
export function checkNavigations(index: MetadataIndex, document: MetadataDocument<EntityFile>, report: Report): void {
  const { file, doc } = document;
  (doc.navigationProperties ?? []).forEach((navigation, position) => {
    const at = jsonPointer('navigationProperties', position);
    const target = index.entityByName.get(navigation.target)?.doc;
    if (target === undefined) {
      const isEnum = index.enumByName.has(navigation.target);
      report({
        file,
        pointer: `${at}/target`,
        message: isEnum ? `"${navigation.target}" is an enum type, not an entity type.` : `Unknown entity type "${navigation.target}".`,
        fix: `${chooseFrom(navigation.target, [...index.entityByName.keys()], 'an entity type of entities/')}.`,
      });
      return;
    }
    checkJoins(index, file, doc, target, navigation, at, report);
    checkCardinality(file, target, navigation, at, report);
    checkWriteFlags(file, doc, target, navigation, at, report);
    checkPartner(file, doc, target, navigation, at, report);
    checkContainment(file, doc, target, navigation, at, report);
  });
}
