/**
 * Checks of computed properties: every lookup path walks single-valued navigations to a stored
 * property of the same type as the computed one, and `exists` names a collection-valued navigation.
 * The planner turns these into SQL without further checks, so they must be right here.
 */
import type { EntityFile, MetadataDocument, PropertyFile } from './metadata-format.js';
import { isKnownType, isStored, navigationNames, navigationOf, propertyNames, propertyOf, type MetadataIndex, type Report } from './metadata-index.js';
import { jsonPointer } from './model-error.js';
import { chooseFrom } from './suggest-name.js';

/** Follows `path` from `start`; returns the property it ends at, or undefined after reporting why not. */
function resolvePath(index: MetadataIndex, file: string, start: EntityFile, path: readonly string[], at: string, report: Report): PropertyFile | undefined {
  let current = start;
  for (let step = 0; step < path.length - 1; step++) {
    const name = path[step] ?? '';
    const navigation = navigationOf(current, name);
    if (navigation === undefined || navigation.collection) {
      const singles = navigationNames(current, (candidate) => !candidate.collection);
      report({
        file,
        pointer: `${at}/${step}`,
        message: `"${name}" is not a single-valued navigation property of ${current.name}.`,
        fix: `${chooseFrom(name, singles, 'a single-valued navigation of ' + current.name)}.`,
      });
      return undefined;
    }
    const next = index.entityByName.get(navigation.target)?.doc;
    if (next === undefined) return undefined; // the unknown target is reported by check-navigations.ts
    current = next;
  }
  const last = path.length - 1;
  const name = path[last] ?? '';
  const property = propertyOf(current, name);
  if (property === undefined || !isStored(property)) {
    const what = property === undefined ? 'is not a property' : 'is computed or media, not a stored property';
    report({
      file,
      pointer: `${at}/${last}`,
      message: `"${name}" ${what} of ${current.name}.`,
      fix: `${chooseFrom(name, propertyNames(current, isStored))}.`,
    });
    return undefined;
  }
  return property;
}

/** The looked-up value is returned as the computed property, so the types must agree. */
function checkSameType(index: MetadataIndex, file: string, property: PropertyFile, found: PropertyFile | undefined, at: string, report: Report): void {
  if (found !== undefined && found.type !== property.type && isKnownType(index, found.type) && isKnownType(index, property.type)) {
    report({
      file,
      pointer: `${at}/type`,
      message: `The path ends at "${found.name}" of type ${found.type}, but the property has type ${property.type}.`,
      fix: `set "type" to "${found.type}", or change the path.`,
    });
  }
}

/** Runs the computed-property checks of one entity file. */
export function checkComputed(index: MetadataIndex, document: MetadataDocument<EntityFile>, report: Report): void {
  const { file, doc } = document;
  doc.properties.forEach((property, position) => {
    const computed = property.computed;
    if (computed === undefined) return;
    const at = jsonPointer('properties', position);
    switch (computed.kind) {
      case 'lookup':
        checkSameType(index, file, property, resolvePath(index, file, doc, computed.path, `${at}/computed/path`, report), at, report);
        return;
      case 'firstNonEmpty':
        computed.paths.forEach((path, pathIndex) => {
          checkSameType(index, file, property, resolvePath(index, file, doc, path, `${at}/computed/paths/${pathIndex}`, report), at, report);
        });
        if (typeof computed.fallback === 'string' && property.type !== 'Edm.String') {
          report({
            file,
            pointer: `${at}/computed/fallback`,
            message: `A string fallback does not fit type ${property.type}.`,
            fix: 'use null as the fallback.',
          });
        }
        return;
      case 'exists': {
        const navigation = navigationOf(doc, computed.navigation);
        if (navigation === undefined || !navigation.collection) {
          report({
            file,
            pointer: `${at}/computed/navigation`,
            message: `"${computed.navigation}" is not a collection-valued navigation property of ${doc.name}.`,
            fix: `${chooseFrom(computed.navigation, navigationNames(doc, (candidate) => candidate.collection))}.`,
          });
        }
        if (property.type !== 'Edm.Boolean') {
          report({
            file,
            pointer: `${at}/type`,
            message: `"exists" yields true or false, but the type is ${property.type}.`,
            fix: 'set "type" to "Edm.Boolean".',
          });
        }
        return;
      }
    }
  });
}
