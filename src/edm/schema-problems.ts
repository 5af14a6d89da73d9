/**
 * Turns ajv's validation errors into model problems a person can act on: the JSON pointer of the
 * offending member (for an unknown member, the member itself), a plain message, and a fix built
 * from the schema (the allowed member names, the allowed values, or the schema's description).
 */
import type { ErrorObject } from 'ajv';
import { jsonPointer, pointerSegment, type ModelProblem } from './model-error.js';
import { chooseFrom } from './suggest-name.js';

/** Narrows an unknown JSON value to an object (ajv hands schemas and params over untyped). */
function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The `description` of a schema node, phrased as what to write (`write a positive integer`). */
function describe(schema: unknown, fallback: string): string {
  const description = asRecord(schema)?.['description'];
  return typeof description === 'string' ? `write ${description}` : fallback;
}

/** The `const` values of a discriminated `oneOf` (the allowed `kind`s). */
function discriminatorValues(parentSchema: unknown, tag: string): string[] {
  const branches = asRecord(parentSchema)?.['oneOf'];
  if (!Array.isArray(branches)) return [];
  return branches.flatMap((branch) => {
    const value = asRecord(asRecord(asRecord(branch)?.['properties'])?.[tag])?.['const'];
    return typeof value === 'string' ? [value] : [];
  });
}

/** One problem for one ajv error (ajv must run with `verbose: true` so that data and parentSchema are set). */
function toProblem(file: string, error: ErrorObject): ModelProblem {
  const params: Record<string, unknown> = asRecord(error.params) ?? {};
  const at = error.instancePath;
  const shown = JSON.stringify(error.data);
  switch (error.keyword) {
    case 'additionalProperties': {
      const member = String(params['additionalProperty']);
      const allowed = Object.keys(asRecord(asRecord(error.parentSchema)?.['properties']) ?? {});
      const fix = chooseFrom(member, allowed);
      return { file, pointer: `${at}/${pointerSegment(member)}`, message: `Unknown member "${member}".`, fix: `remove it, or ${fix}.` };
    }
    case 'required': {
      const member = String(params['missingProperty']);
      const memberSchema = asRecord(asRecord(error.parentSchema)?.['properties'])?.[member];
      const what = asRecord(memberSchema)?.['description'];
      const fix = typeof what === 'string' ? `add "${member}": ${what}.` : `add "${member}".`;
      return { file, pointer: at, message: `The required member "${member}" is missing.`, fix };
    }
    case 'discriminator': {
      const tag = String(params['tag']);
      const kinds = discriminatorValues(error.parentSchema, tag).join(', ');
      if (params['error'] === 'mapping') {
        const value = String(params['tagValue']);
        return { file, pointer: `${at}/${pointerSegment(tag)}`, message: `Unknown ${tag} "${value}".`, fix: `${chooseFrom(value, kinds.split(', '))}.` };
      }
      return { file, pointer: at, message: `"${tag}" must be a string.`, fix: `set "${tag}" to one of: ${kinds}.` };
    }
    case 'enum':
    case 'const': {
      const allowed = error.keyword === 'enum' ? (Array.isArray(error.schema) ? error.schema : []) : [error.schema];
      return { file, pointer: at, message: `${shown} is not allowed here.`, fix: `use one of: ${allowed.map((value) => JSON.stringify(value)).join(', ')}.` };
    }
    case 'uniqueItems': {
      const duplicate = Number(params['i']);
      return { file, pointer: `${at}/${duplicate}`, message: `Item ${duplicate} repeats item ${String(params['j'])}.`, fix: 'remove the duplicate.' };
    }
    case 'type':
      return { file, pointer: at, message: `${shown} is not of type ${String(params['type'])}.`, fix: `${describe(error.parentSchema, `write a ${String(params['type'])}`)}.` };
    case 'pattern':
      return { file, pointer: at, message: `${shown} is not valid here.`, fix: `${describe(error.parentSchema, `match the pattern ${String(params['pattern'])}`)}.` };
    default:
      return { file, pointer: at, message: `${shown} ${error.message ?? 'is invalid'}.`, fix: `${describe(error.parentSchema, 'see the JSON schema of this file')}.` };
  }
}

/** All problems for the errors of one validation of `file` (in ajv's order, which follows the document). */
export function schemaProblems(file: string, errors: readonly ErrorObject[] | null | undefined): ModelProblem[] {
  return (errors ?? []).map((error) => toProblem(file, error));
}

/** A problem for a document that is not valid JSON, with 1-based line and column of `position`. */
export function syntaxProblem(file: string, text: string, position: number, detail: string): ModelProblem {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return {
    file,
    pointer: jsonPointer(),
    message: `JSON syntax error at line ${line}, column ${column} (offset ${position}): ${detail}.`,
    fix: 'correct the JSON at that position (a missing comma or quote, or a trailing comma, is the usual cause).',
  };
}
