/**
 * The corpus `Constraints` stand in for a service model: the reference checker only lets identifier
 * rules match the listed names. A few negative cases are negative only because of that (a `$value`
 * on a complex property, a function import used as a bound function). The parser knows no model, so
 * these checks do what our binder does with the real model, using the corpus name lists, and only
 * for the syntactic roles the parser leaves open.
 */
import type { PathSegment } from '../../../src/uri/ast.js';
import { ConstraintViolation, type Parsed } from './rule-entry-points.js';

/** Name lists of the corpus, by rule name. */
export type Constraints = Readonly<Record<string, readonly string[]>>;

/** Throws ConstraintViolation if the parse result uses a name in a role the constraints forbid. */
export function checkConstraints(parsed: Parsed, constraints: Constraints): void {
  const names = (...rules: string[]): Set<string> => new Set(rules.flatMap((r) => constraints[r] ?? []));
  if (parsed.query !== undefined) {
    // Custom options and function parameters passed as query options (ABNF `customName`, `nameAndValue`).
    const allowed = names('customName', 'parameterName');
    for (const name of parsed.query.custom.keys()) {
      if (!allowed.has(name)) throw new ConstraintViolation(`'${name}' is not a custom option or parameter of the model`);
    }
  }
  const segments = parsed.path?.segments ?? [];
  const noValue = names('complexProperty', 'complexColProperty', 'streamProperty');
  const boundFunctions = names('entityFunction', 'entityColFunction', 'complexFunction', 'complexColFunction', 'primitiveFunction', 'primitiveColFunction');
  const actions = names('action');
  segments.forEach((seg, i) => {
    const prev = segments[i - 1];
    if (prev === undefined) return;
    if (seg.kind === 'value' && prev.kind === 'identifier' && noValue.has(prev.name)) {
      throw new ConstraintViolation(`'${prev.name}' is a complex or stream property: no /$value`, seg.span.start);
    }
    if (seg.kind === 'qualified' && isCast(seg) && isCast(prev) && !actions.has(lastPart(seg.name))) {
      throw new ConstraintViolation(`'${seg.name}' after a type cast is neither an action nor a second cast`, seg.span.start);
    }
    if (seg.kind === 'identifier' && seg.params !== undefined && !boundFunctions.has(seg.name)) {
      throw new ConstraintViolation(`'${seg.name}' is not a bound function (function imports only start a path)`, seg.span.start);
    }
  });
}

function isCast(seg: PathSegment): boolean {
  return seg.kind === 'qualified' && seg.params === undefined && seg.key === undefined;
}

function lastPart(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}
