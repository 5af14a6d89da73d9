/**
 * Reads the metadata folder (service.json, enums/*.json, entities/*.json, events/*.json), parses each file and
 * validates it against its JSON schema from the repository's `schemas/` folder. Every problem of
 * every file is collected; cross-file checks (check-model.ts) only run on a fully valid set.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import type { EntityFile, EnumFile, EventFile, MetadataDocument, MetadataFiles, ServiceFile } from './metadata-format.js';
import { ModelError, type ModelProblem } from './model-error.js';
import { schemaProblems, syntaxProblem } from './schema-problems.js';

/** The validators, compiled once per schemas folder (compiling costs more than loading a model). */
interface Validators {
  readonly service: ValidateFunction<ServiceFile>;
  readonly enum: ValidateFunction<EnumFile>;
  readonly entity: ValidateFunction<EntityFile>;
  readonly event: ValidateFunction<EventFile>;
}

const validatorCache = new Map<string, Validators>();

/**
 * The repository's `schemas/` folder, found by walking up from this module: the loader runs both
 * from `src/edm/` (jest runs the sources) and from `dist/src/edm/` (compiled), at different depths.
 */
export function findSchemasDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'schemas');
    if (fs.existsSync(path.join(candidate, 'entity.schema.json'))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) {
      throw new ModelError([{
        file: fileURLToPath(import.meta.url),
        pointer: '',
        message: 'No schemas/ folder with entity.schema.json was found above the loader.',
        fix: 'run the service from a complete checkout or package that includes schemas/.',
      }]);
    }
    dir = parent;
  }
}

/** Compiles (or reuses) the validators of `schemasDir`. */
function validatorsFor(schemasDir: string): Validators {
  const cached = validatorCache.get(schemasDir);
  if (cached) return cached;
  // verbose: schema-problems.ts needs the data and parent schema of each error to phrase its fix.
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, discriminator: true, verbose: true });
  const schema = (name: string): object => JSON.parse(fs.readFileSync(path.join(schemasDir, `${name}.schema.json`), 'utf8')) as object;
  const validators: Validators = {
    service: ajv.compile<ServiceFile>(schema('service')),
    enum: ajv.compile<EnumFile>(schema('enum')),
    entity: ajv.compile<EntityFile>(schema('entity')),
    event: ajv.compile<EventFile>(schema('event')),
  };
  validatorCache.set(schemasDir, validators);
  return validators;
}

/** V8's position of a JSON.parse failure; `undefined` when the message names none. */
function positionIn(message: string): number | undefined {
  const match = /at position (\d+)/.exec(message);
  return match ? Number(match[1]) : undefined;
}

/** true when `prefix` fails to parse for a reason other than ending too early. */
function failsBeforeEnd(prefix: string): boolean {
  try {
    JSON.parse(prefix);
    return false;
  } catch (error) {
    const message = (error as Error).message;
    if (message.includes('end of JSON input')) return false;
    const position = positionIn(message);
    return position === undefined || position < prefix.length;
  }
}

/** Offset of a JSON syntax error; V8 omits it for "Unexpected token", so search the shortest failing prefix. */
function errorOffset(text: string, message: string): number {
  const position = positionIn(message);
  if (position !== undefined) return position;
  if (message.includes('end of JSON input')) return text.length;
  let low = 1;
  let high = text.length;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (failsBeforeEnd(text.slice(0, middle))) high = middle;
    else low = middle + 1;
  }
  return low - 1;
}

/** Reads, parses and validates one file; undefined (and problems) when it is unreadable or invalid. */
function readDocument<T>(file: string, root: string, validate: ValidateFunction<T>, problems: ModelProblem[]): MetadataDocument<T> | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'The file is missing.' : `The file cannot be read (${(error as Error).message}).`;
    problems.push({ file, pointer: '', message: reason, fix: 'create it as described in the schemas/ folder.' });
    return undefined;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    // Drop V8's quotation of the source text: the position says where to look.
    const detail = (error as Error).message.replace(/, ".*" is not valid JSON$/s, '').replace(/ in JSON at position \d+.*$/s, '');
    problems.push(syntaxProblem(file, text, errorOffset(text, (error as Error).message), detail));
    return undefined;
  }
  if (!validate(doc)) {
    problems.push(...schemaProblems(file, validate.errors));
    return undefined;
  }
  return { file, source: path.relative(root, file).split(path.sep).join('/'), doc };
}

/** The `.json` files of a sub-folder, sorted by name (a missing folder has none). */
function jsonFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((name) => name.endsWith('.json')).sort().map((name) => path.join(dir, name));
}

/** Reads every metadata file of `dir` (events/ is optional); returns the documents when all are valid, else throws ModelError with all problems. */
export function readMetadataFiles(dir: string): MetadataFiles {
  const metadataDir = path.resolve(dir);
  if (!fs.existsSync(metadataDir) || !fs.statSync(metadataDir).isDirectory()) {
    throw new ModelError([{ file: metadataDir, pointer: '', message: 'The metadata folder does not exist.', fix: 'pass the folder that holds service.json, enums/ and entities/.' }]);
  }
  const validators = validatorsFor(findSchemasDir());
  // `source` paths start with the metadata folder's own name (`metadata/entities/x.json`).
  const root = path.dirname(metadataDir);
  const problems: ModelProblem[] = [];
  const service = readDocument(path.join(metadataDir, 'service.json'), root, validators.service, problems);
  const enums = jsonFiles(path.join(metadataDir, 'enums')).map((file) => readDocument(file, root, validators.enum, problems));
  const entities = jsonFiles(path.join(metadataDir, 'entities')).map((file) => readDocument(file, root, validators.entity, problems));
  const events = jsonFiles(path.join(metadataDir, 'events')).map((file) => readDocument(file, root, validators.event, problems));
  if (problems.length > 0 || service === undefined) throw new ModelError(problems);
  return {
    service,
    enums: enums.filter((document) => document !== undefined),
    entities: entities.filter((document) => document !== undefined),
    events: events.filter((document) => document !== undefined),
  };
}
