/**
 * Binds canonical function calls (URL Conventions §5.1.1.5–5.1.1.8): name, arity and argument types,
 * and the result type. Functions the service cannot evaluate are 501.
 */
import type { PrimitiveTypeName } from '../edm/model.js';
import { NotImplementedError, UriSemanticError } from '../errors/odata-error.js';
import type { Expr } from '../uri/ast.js';
import type { BoundExpr, CanonicalFunction, ExprType } from './bound-ast.js';
import type { BindScope } from './bind-expression.js';
import { isNumeric, prim, typeName } from './expr-types.js';

type ArgKind = 'string' | 'number' | 'integer' | 'datetime' | 'date-or-datetime' | 'time-or-datetime';

interface Signature {
  readonly args: readonly ArgKind[];
  /** Minimum number of arguments, when fewer than `args` are allowed. */
  readonly min?: number;
  readonly result: PrimitiveTypeName | 'same';
}

const SIGNATURES: Readonly<Record<CanonicalFunction, Signature>> = {
  contains: { args: ['string', 'string'], result: 'Edm.Boolean' },
  startswith: { args: ['string', 'string'], result: 'Edm.Boolean' },
  endswith: { args: ['string', 'string'], result: 'Edm.Boolean' },
  length: { args: ['string'], result: 'Edm.Int32' },
  indexof: { args: ['string', 'string'], result: 'Edm.Int32' },
  substring: { args: ['string', 'integer', 'integer'], min: 2, result: 'Edm.String' },
  tolower: { args: ['string'], result: 'Edm.String' },
  toupper: { args: ['string'], result: 'Edm.String' },
  trim: { args: ['string'], result: 'Edm.String' },
  concat: { args: ['string', 'string'], result: 'Edm.String' },
  matchesPattern: { args: ['string', 'string'], result: 'Edm.Boolean' },
  year: { args: ['date-or-datetime'], result: 'Edm.Int32' },
  month: { args: ['date-or-datetime'], result: 'Edm.Int32' },
  day: { args: ['date-or-datetime'], result: 'Edm.Int32' },
  hour: { args: ['time-or-datetime'], result: 'Edm.Int32' },
  minute: { args: ['time-or-datetime'], result: 'Edm.Int32' },
  second: { args: ['time-or-datetime'], result: 'Edm.Int32' },
  fractionalseconds: { args: ['time-or-datetime'], result: 'Edm.Decimal' },
  date: { args: ['datetime'], result: 'Edm.Date' },
  time: { args: ['datetime'], result: 'Edm.TimeOfDay' },
  now: { args: [], result: 'Edm.DateTimeOffset' },
  round: { args: ['number'], result: 'same' },
  floor: { args: ['number'], result: 'same' },
  ceiling: { args: ['number'], result: 'same' },
};

function isCanonical(name: string): name is CanonicalFunction {
  return Object.prototype.hasOwnProperty.call(SIGNATURES, name);
}

function fits(kind: ArgKind, t: ExprType): boolean {
  if (t.kind === 'null') return true;
  if (t.kind !== 'primitive') return false;
  switch (kind) {
    case 'string':
      return t.name === 'Edm.String';
    case 'number':
      return isNumeric(t);
    case 'integer':
      return t.name === 'Edm.Int32' || t.name === 'Edm.Int64';
    case 'datetime':
      return t.name === 'Edm.DateTimeOffset';
    case 'date-or-datetime':
      return t.name === 'Edm.Date' || t.name === 'Edm.DateTimeOffset';
    case 'time-or-datetime':
      return t.name === 'Edm.TimeOfDay' || t.name === 'Edm.DateTimeOffset';
  }
}

/**
 * matchesPattern()'s pattern is an ECMAScript regular expression (URL Conventions §5.1.1.7.1, read with
 * the `u` flag): a literal that is none is a 400 saying why, on every engine (SQLite's function took it
 * as matching nothing, PostgreSQL read it in its own dialect).
 */
function checkPattern(pattern: BoundExpr | undefined, scope: BindScope): void {
  if (pattern?.kind !== 'literal' || typeof pattern.value !== 'string') return;
  try {
    new RegExp(pattern.value, 'u');
  } catch (e) {
    throw new UriSemanticError(`The pattern of matchesPattern() is not an ECMAScript regular expression: ${(e as Error).message}.`, scope.option, 'BadRequest_InvalidRequestUrl');
  }
}

/** Binds a call; `bind` binds the arguments. */
export function bindCall(expr: Extract<Expr, { kind: 'call' }>, scope: BindScope, bind: (e: Expr, s: BindScope) => BoundExpr): BoundExpr {
  const name = expr.name;
  if (!isCanonical(name)) {
    if (['cast', 'isof', 'case', 'totaloffsetminutes', 'totalseconds', 'maxdatetime', 'mindatetime', 'geo.distance', 'geo.intersects', 'geo.length', 'hassubset', 'hassubsequence'].includes(name)) {
      throw new NotImplementedError(`The function ${name}() is not supported by this service.`);
    }
    throw new UriSemanticError(`Unknown function '${name}'.`, scope.option, 'BadRequest_InvalidRequestUrl');
  }
  const sig = SIGNATURES[name];
  const min = sig.min ?? sig.args.length;
  if (expr.args.length < min || expr.args.length > sig.args.length) {
    const arity = min === sig.args.length ? `${min}` : `${min} or ${sig.args.length}`;
    throw new UriSemanticError(`${name}() takes ${arity} argument${sig.args.length === 1 ? '' : 's'}, not ${expr.args.length}.`, scope.option, 'BadRequest_InvalidRequestUrl');
  }
  const args = expr.args.map((a) => bind(a, scope));
  args.forEach((a, i) => {
    const kind = sig.args[i] as ArgKind;
    if (!fits(kind, a.type)) {
      throw new UriSemanticError(`Argument ${i + 1} of ${name}() must be ${kind.replace(/-/g, ' ')}, not ${typeName(a.type)}.`, scope.option, 'BadRequest_InvalidRequestUrl');
    }
  });
  if (name === 'matchesPattern') checkPattern(args[1], scope);
  const result: ExprType = sig.result === 'same' ? (args[0]?.type ?? prim('Edm.Decimal')) : prim(sig.result);
  return { kind: 'call', fn: name, args, type: result };
}
