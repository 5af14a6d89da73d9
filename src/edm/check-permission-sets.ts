/**
 * Permission-set names (conventions §7): every set an entity file names (its `permissions` and its
 * `rowScope`) must be declared in service.json's `permissionSets` (or be the built-in SUPER), so a
 * misspelt `"ECN-REED"` stops start-up with a "did you mean" instead of guarding the type with a set
 * nobody can be granted. Declared names are unique.
 */
import type { MetadataIndex, Report } from './metadata-index.js';
import { jsonPointer } from './model-error.js';
import { chooseFrom } from './suggest-name.js';

/** The built-in permission set that allows everything; never declared. */
export const BUILT_IN_PERMISSION_SET = 'SUPER';

/** Reports undeclared set names in entity files and repeated or built-in declarations in service.json. */
export function checkPermissionSets(index: MetadataIndex, report: Report): void {
  const service = index.files.service;
  const declared: string[] = [];
  service.doc.permissionSets.forEach((set, position) => {
    const pointer = jsonPointer('permissionSets', position, 'name');
    if (set.name === BUILT_IN_PERMISSION_SET) {
      report({ file: service.file, pointer, message: `${BUILT_IN_PERMISSION_SET} is built in (it allows everything) and is not declared.`, fix: `remove this entry.` });
    } else if (declared.includes(set.name)) {
      report({ file: service.file, pointer, message: `The permission set "${set.name}" is declared twice.`, fix: 'remove one of the two entries.' });
    }
    declared.push(set.name);
  });
  const known = [...new Set([...declared, BUILT_IN_PERMISSION_SET])];
  const check = (file: string, pointer: string, name: string): void => {
    if (known.includes(name)) return;
    report({ file, pointer, message: `The permission set "${name}" is not declared in service.json.`, fix: `${chooseFrom(name, known, 'a declared set')}; or declare it in "permissionSets" in service.json.` });
  };
  for (const { file, doc } of index.files.entities) {
    if (doc.permissions !== undefined) {
      check(file, jsonPointer('permissions', 'read'), doc.permissions.read);
      check(file, jsonPointer('permissions', 'write'), doc.permissions.write);
    }
    if (doc.rowScope !== undefined) check(file, jsonPointer('rowScope', 'permission'), doc.rowScope.permission);
  }
}
