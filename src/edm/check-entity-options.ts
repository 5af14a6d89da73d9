/**
 * Checks of an entity type's access and addressing options: alternate keys (stored, non-nullable
 * properties usable in a key predicate, distinct from the key and from each other), the row scope of
 * a global type (a GUID company property; no navigation may lead into such a type, since a navigation
 * or $expand would read its rows without the scope), and the per-row secret.
 */
import { isStored, propertyNames, propertyOf, type MetadataIndex, type Report } from './metadata-index.js';
import type { EntityFile, MetadataDocument } from './metadata-format.js';
import { jsonPointer } from './model-error.js';
import { chooseFrom } from './suggest-name.js';

/** Types a key predicate can name as literals (OData ABNF keyPropertyValue: primitives). */
const ALTERNATE_KEY_TYPES: readonly string[] = ['Edm.Guid', 'Edm.String', 'Edm.Int32', 'Edm.Int64', 'Edm.Date'];

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name) => b.includes(name));
}

function checkAlternateKeys(document: MetadataDocument<EntityFile>, report: Report): void {
  const { file, doc } = document;
  const seen: (readonly string[])[] = [[doc.key]];
  (doc.alternateKeys ?? []).forEach((names, position) => {
    names.forEach((name, at) => {
      const property = propertyOf(doc, name);
      const pointer = jsonPointer('alternateKeys', position, at);
      if (property === undefined) {
        report({ file, pointer, message: `The alternate key names "${name}", which is not a property of ${doc.name}.`, fix: `${chooseFrom(name, propertyNames(doc))}.` });
      } else if (!isStored(property) || property.nullable !== false || !ALTERNATE_KEY_TYPES.includes(property.type)) {
        report({
          file,
          pointer,
          message: `The alternate key property "${name}" must be stored, non-nullable and of type ${ALTERNATE_KEY_TYPES.join(', ')}.`,
          fix: `add "nullable": false to it, or ${chooseFrom(name, propertyNames(doc, (p) => isStored(p) && p.nullable === false && ALTERNATE_KEY_TYPES.includes(p.type)))}.`,
        });
      }
    });
    if (seen.some((other) => sameSet(other, names))) {
      report({ file, pointer: jsonPointer('alternateKeys', position), message: `The alternate key (${names.join(', ')}) repeats the key or another alternate key.`, fix: 'remove it.' });
    }
    seen.push(names);
  });
}

function checkRowScope(index: MetadataIndex, document: MetadataDocument<EntityFile>, report: Report): void {
  const { file, doc } = document;
  if (doc.rowScope === undefined) return;
  if (doc.scope !== 'global') {
    report({ file, pointer: '/rowScope', message: 'A row scope applies to global types only (company-scoped rows are scoped by their company already).', fix: 'remove "rowScope", or make the type global.' });
  }
  const property = propertyOf(doc, doc.rowScope.companyProperty);
  if (property === undefined || property.type !== 'Edm.Guid' || property.nullable !== false || !isStored(property)) {
    report({
      file,
      pointer: '/rowScope/companyProperty',
      message: `The row scope's company property "${doc.rowScope.companyProperty}" must be a stored, non-nullable Edm.Guid property of ${doc.name}.`,
      fix: `${chooseFrom(doc.rowScope.companyProperty, propertyNames(doc, (p) => p.type === 'Edm.Guid'))}.`,
    });
  }
  refuseNavigationsInto(index, doc.name, 'a row scope', "rows outside the caller's companies", report);
}

/** No navigation may lead into a type whose rows are scoped (`scope`): a navigation or $expand would read `rows` past the scope. */
export function refuseNavigationsInto(index: MetadataIndex, typeName: string, scope: string, rows: string, report: Report): void {
  for (const other of index.files.entities) {
    (other.doc.navigationProperties ?? []).forEach((navigation, position) => {
      if (navigation.target !== typeName) return;
      report({
        file: other.file,
        pointer: jsonPointer('navigationProperties', position, 'target'),
        message: `${typeName} has ${scope}, so no navigation may lead to it (it would read ${rows}).`,
        fix: `remove the navigation, or ${scope.replace(/^an? /, 'the ')} of the target.`,
      });
    });
  }
}

function checkSecret(document: MetadataDocument<EntityFile>, report: Report): void {
  const { file, doc } = document;
  if (doc.secret === undefined) return;
  if (doc.capabilities?.insertable === false) {
    report({ file, pointer: '/secret', message: 'A per-row secret is only ever shown in the response to a POST, but the type is not insertable.', fix: 'remove "secret", or allow inserts.' });
  }
}

/** Runs the checks of one entity file's alternate keys, row scope and secret. */
export function checkEntityOptions(index: MetadataIndex, document: MetadataDocument<EntityFile>, report: Report): void {
  checkAlternateKeys(document, report);
  checkRowScope(index, document, report);
  checkSecret(document, report);
}
