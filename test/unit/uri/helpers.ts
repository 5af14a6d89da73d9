/** Test helpers for the URL parser: span-free views of the AST and error assertions. */
import { QueryLimitError, UriSyntaxError } from '../../../src/errors/odata-error.js';
import type { Expr } from '../../../src/uri/ast.js';

/** A deep copy without `span` fields, so trees can be compared with toEqual. */
export function bare<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value, (k, v: unknown) => (k === 'span' ? undefined : v instanceof Map ? Object.fromEntries(v) : v)));
}

/** A member path of plain names rooted at `$it`. */
export function path(...names: string[]): unknown {
  return { kind: 'member', root: { kind: 'it' }, segments: names.map((name) => ({ kind: 'name', name })) };
}

/** An integer literal expression. */
export function int(value: string): unknown {
  return { kind: 'literal', literal: { kind: 'integer', value } };
}

/** A string literal expression. */
export function str(value: string): unknown {
  return { kind: 'literal', literal: { kind: 'string', value } };
}

/** A binary expression. */
export function bin(operator: string, left: unknown, right: unknown): unknown {
  return { kind: 'binary', operator, left, right };
}

/** Runs `f`, expects a UriSyntaxError, and returns it. */
export function syntaxError(f: () => unknown): UriSyntaxError {
  try {
    f();
  } catch (e) {
    if (e instanceof UriSyntaxError) return e;
    throw e;
  }
  throw new Error('expected a UriSyntaxError, but the input was accepted');
}

/** Runs `f`, expects a QueryLimitError, and returns it. */
export function limitError(f: () => unknown): QueryLimitError {
  try {
    f();
  } catch (e) {
    if (e instanceof QueryLimitError) return e;
    throw e;
  }
  throw new Error('expected a QueryLimitError, but the input was accepted');
}

/** Narrows an expression for tests. */
export function as<K extends Expr['kind']>(e: Expr, kind: K): Extract<Expr, { kind: K }> {
  if (e.kind !== kind) throw new Error(`expected ${kind} but got ${e.kind}`);
  return e as Extract<Expr, { kind: K }>;
}

/** What a parse gives for `input`: `{ ok: result }`, or the error's class and message, so two parsers' outcomes compare with toEqual. */
export function outcome(parse: (input: string) => unknown, input: string): unknown {
  try {
    return { ok: parse(input) };
  } catch (e) {
    return { error: (e as Error).constructor.name, message: (e as Error).message };
  }
}
