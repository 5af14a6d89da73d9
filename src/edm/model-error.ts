/**
 * The one error the model loader throws: every problem found in `metadata/`, each naming the file,
 * the JSON pointer inside it, what is wrong and how to fix it, so a person can correct the whole
 * model in one round instead of one error per start-up.
 */
import path from 'node:path';

/** One problem of the model: where it is, what is wrong, what to do. */
export interface ModelProblem {
  /** Absolute path of the metadata (or schema) file. */
  readonly file: string;
  /** JSON pointer (RFC 6901) into that file; `''` is the whole document. */
  readonly pointer: string;
  readonly message: string;
  readonly fix: string;
}

/** Thrown by loadModel with all problems of the model; its message has one line per problem. */
export class ModelError extends Error {
  constructor(readonly problems: readonly ModelProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ModelError';
  }
}

/** `<file relative to cwd>: <pointer>: <message> Fix: <fix>` (the whole document is shown as `(document)`). */
export function formatProblem(problem: ModelProblem): string {
  const file = path.relative(process.cwd(), problem.file) || problem.file;
  const pointer = problem.pointer === '' ? '(document)' : problem.pointer;
  return `${file}: ${pointer}: ${problem.message} Fix: ${problem.fix}`;
}

/** Escapes one JSON pointer segment (RFC 6901 §3: `~` → `~0`, `/` → `~1`). */
export function pointerSegment(segment: string | number): string {
  return String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Joins segments into a JSON pointer, e.g. (['properties', 3, 'type']) → `/properties/3/type`. */
export function jsonPointer(...segments: readonly (string | number)[]): string {
  return segments.map((segment) => `/${pointerSegment(segment)}`).join('');
}
