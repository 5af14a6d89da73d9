/**
 * The cross-file checks of a schema-valid set of metadata files (what JSON Schema cannot see:
 * references between declarations). All problems are collected; none stops the others.
 */
import { checkComputed } from './check-computed.js';
import { checkDeclarations } from './check-declarations.js';
import { checkEntityOptions } from './check-entity-options.js';
import { checkEvents } from './check-events.js';
import { checkNavigations } from './check-navigations.js';
import { checkPermissionSets } from './check-permission-sets.js';
import { checkProperties } from './check-properties.js';
import { checkSubscriptions } from './check-subscriptions.js';
import type { MetadataFiles } from './metadata-format.js';
import { indexMetadata } from './metadata-index.js';
import type { ModelProblem } from './model-error.js';

/** Every cross-file problem of `files`, in file order (an empty list means the model can be built). */
export function checkModel(files: MetadataFiles): ModelProblem[] {
  const problems: ModelProblem[] = [];
  const report = (problem: ModelProblem): void => {
    problems.push(problem);
  };
  const index = indexMetadata(files);
  checkDeclarations(index, report);
  checkPermissionSets(index, report);
  for (const document of files.entities) {
    checkProperties(index, document, report);
    checkNavigations(index, document, report);
    checkComputed(index, document, report);
    checkEntityOptions(index, document, report);
  }
  checkEvents(index, report);
  checkSubscriptions(index, report);
  // Stable order by file, so the message reads file by file whatever check found what.
  const fileOrder = [files.service.file, ...files.enums.map((d) => d.file), ...files.entities.map((d) => d.file), ...files.events.map((d) => d.file)];
  return problems
    .map((problem, position) => ({ problem, position }))
    .sort((a, b) => fileOrder.indexOf(a.problem.file) - fileOrder.indexOf(b.problem.file) || a.position - b.position)
    .map(({ problem }) => problem);
}
