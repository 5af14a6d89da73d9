/**
 * Canonical function calls (ABNF `methodCallExpr`, `boolMethodCallExpr`, URL Conventions 4.01
 * §5.1.1.4-§5.1.1.12): string, collection, date/time, arithmetic, spatial and type functions, and
 * `case`. Names match case-insensitively (plain ABNF strings) and are stored in their canonical
 * spelling; the argument count is checked here so a wrong call fails with a message naming it.
 */
import type { Expr } from './ast.js';
import type { Lexer } from './lexer.js';
import type { ExprParser } from './parse-expression.js';

/** Canonical name and allowed argument counts, by lower-case name. */
const CANONICAL: ReadonlyMap<string, readonly [string, number, number]> = new Map(
  (
    [
      ['concat', 2, 2],
      ['contains', 2, 2],
      ['endswith', 2, 2],
      ['indexof', 2, 2],
      ['length', 1, 1],
      ['matchesPattern', 2, 2],
      ['startswith', 2, 2],
      ['substring', 2, 3],
      ['tolower', 1, 1],
      ['toupper', 1, 1],
      ['trim', 1, 1],
      ['hassubset', 2, 2],
      ['hassubsequence', 2, 2],
      ['year', 1, 1],
      ['month', 1, 1],
      ['day', 1, 1],
      ['hour', 1, 1],
      ['minute', 1, 1],
      ['second', 1, 1],
      ['fractionalseconds', 1, 1],
      ['totalseconds', 1, 1],
      ['date', 1, 1],
      ['time', 1, 1],
      ['totaloffsetminutes', 1, 1],
      ['mindatetime', 0, 0],
      ['maxdatetime', 0, 0],
      ['now', 0, 0],
      ['round', 1, 1],
      ['floor', 1, 1],
      ['ceiling', 1, 1],
      ['geo.distance', 2, 2],
      ['geo.length', 1, 1],
      ['geo.intersects', 2, 2],
      ['cast', 1, 2],
      ['isof', 1, 2],
      ['case', 2, Infinity],
    ] as const
  ).map(([name, min, max]) => [name.toLowerCase(), [name, min, max] as const]),
);

/** True if `name` (any case) is a canonical function of URL Conventions §5.1.1. */
export function isCanonicalFunction(name: string): boolean {
  return CANONICAL.has(name.toLowerCase());
}

/** Parses `name(args)` at the cursor; `nameEnd` is where the `(` is. */
export function parseMethodCall(p: ExprParser, nameEnd: number): Expr {
  const lx = p.lx;
  const start = lx.pos;
  const [name, min, max] = CANONICAL.get(lx.text.slice(start, nameEnd).toLowerCase()) ?? ['', 0, 0];
  lx.pos = nameEnd + 1;
  lx.bws();
  lx.node(start);
  if (name === 'cast' || name === 'isof') return typeCall(p, name, start);
  const args: Expr[] = [];
  if (!lx.eat(')')) {
    for (;;) {
      args.push(p.expression());
      lx.bws();
      if (name === 'case') {
        lx.expect(':', "':' between a case condition and its value");
        lx.bws();
        args.push(p.expression());
        lx.bws();
      }
      if (lx.eat(')')) break;
      lx.expect(',', "',' or ')'");
      lx.bws();
    }
  }
  if (args.length < min || args.length > max) {
    const expected = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} or ${max}`;
    throw lx.error(`${name}() takes ${expected} argument${min === 1 && max === 1 ? '' : 's'} but was given ${args.length}`, start);
  }
  return { kind: 'call', name, args, span: lx.span(start) };
}

/** ABNF `castExpr`/`isofExpr`: `cast(Type)` or `cast(expr,Type)`; the type is kept as `typeName`. */
function typeCall(p: ExprParser, name: string, start: number): Expr {
  const lx = p.lx;
  const typeStart = lx.pos;
  const alone = typeNameEnd(lx, typeStart);
  if (alone >= 0 && lx.charAt(alone + lx.whitespaceAt(alone)) === ')') {
    lx.pos = alone;
    lx.bws();
    lx.pos++;
    return { kind: 'call', name, args: [], typeName: lx.text.slice(typeStart, alone), span: lx.span(start) };
  }
  const operand = p.expression();
  lx.bws();
  lx.expect(',', `',' and a type name in ${name}()`);
  lx.bws();
  const at = lx.pos;
  const end = typeNameEnd(lx, at);
  if (end < 0) throw lx.expected(`a type name such as Edm.String or Namespace.Type in ${name}()`);
  lx.pos = end;
  lx.bws();
  lx.expect(')', `')' closing ${name}(`);
  return { kind: 'call', name, args: [operand], typeName: lx.text.slice(at, end), span: lx.span(start) };
}

/** End of ABNF `optionallyQualifiedTypeName` at `at` (`NS.T`, `T`, `Collection(NS.T)`), or -1. */
function typeNameEnd(lx: Lexer, at: number): number {
  if (lx.startsWith('Collection(', at)) {
    const inner = lx.dottedNameEnd(at + 11);
    return inner >= 0 && lx.charAt(inner) === ')' ? inner + 1 : -1;
  }
  return lx.dottedNameEnd(at);
}
