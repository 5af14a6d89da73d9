/**
 * Loads the entity data model from a metadata folder at start-up: read and schema-validate every
 * file, cross-check the declarations, then build the frozen runtime model. Any problem ends in one
 * ModelError listing all of them (never a stack trace: the model author needs places and fixes).
 */
import { buildModel } from './build-model.js';
import { checkModel } from './check-model.js';
import type { EdmModel } from './model.js';
import { ModelError } from './model-error.js';
import { readMetadataFiles } from './read-metadata-files.js';

/** Re-exported so that callers of loadModel need one import. */
export { ModelError, type ModelProblem } from './model-error.js';

/** Loads `dir` (service.json, enums/*.json, entities/*.json) synchronously; throws ModelError on any problem. */
export function loadModel(dir: string): EdmModel {
  const files = readMetadataFiles(dir);
  const problems = checkModel(files);
  if (problems.length > 0) throw new ModelError(problems);
  return buildModel(files);
}
