/**
 * `$apply` (OData Data Aggregation Extension 4.0 §3; odata-aggregation-abnf `applyExpr`): transformations
 * separated by `/`. `aggregate`, `groupby`, `filter`, `orderby`, `top`, `skip`, `identity` and `concat`
 * are parsed completely, with the `from` clauses, custom aggregates and custom methods of their grammar,
 * so that the binder can name what it does not support; every other transformation of the grammar is
 * kept by name, its parenthesised arguments skipped in one linear pass (quotes respected). An unknown
 * name is a syntax error.
 */
import type { AggregateFrom, AggregateItem, AggregateMethod, ApplyTransformation, GroupingItem, MemberExpr, StandardAggregation } from './ast.js';
import type { Lexer } from './lexer.js';
import { isDigit } from './lexer.js';
import type { ExprParser } from './parse-expression.js';
import { parseNamePath } from './parse-member-path.js';
import { parseOrderByItems } from './parse-orderby.js';

const STANDARD: readonly StandardAggregation[] = ['sum', 'min', 'max', 'average', 'countdistinct'];

/** Transformations of the grammar that take parenthesised arguments and that this parser keeps by name. */
const KEPT_BY_NAME: ReadonlySet<string> = new Set([
  'compute', 'join', 'outerjoin', 'nest', 'addnested', 'search',
  'topcount', 'toppercent', 'topsum', 'bottomcount', 'bottompercent', 'bottomsum', 'ancestors', 'descendants', 'traverse',
]);

/** Reads `applyTrafo *( "/" applyTrafo )` at the cursor. */
export function parseApplyExpr(p: ExprParser): ApplyTransformation[] {
  const lx = p.lx;
  lx.enter();
  try {
    const trafos: ApplyTransformation[] = [transformation(p)];
    while (lx.eat('/')) trafos.push(transformation(p));
    return trafos;
  } finally {
    lx.leave();
  }
}

function transformation(p: ExprParser): ApplyTransformation {
  const lx = p.lx;
  const start = lx.pos;
  const end = lx.dottedNameEnd();
  if (end < 0) throw lx.expected('a transformation such as groupby(...), aggregate(...) or filter(...)');
  const name = lx.text.slice(start, end);
  lx.pos = end;
  lx.node(start);
  if (name.includes('.')) {
    // ABNF `customFunction`: a namespace-qualified function with parameters.
    if (lx.char() !== '(') throw lx.expected(`'(' and the parameters of the function ${name}`);
    skipParentheses(lx);
    return { kind: 'unsupported', name, span: lx.span(start) };
  }
  switch (name) {
    case 'aggregate':
      return { kind: 'aggregate', items: list(lx, () => aggregateItem(p)), span: lx.span(start) };
    case 'groupby':
      return groupby(p, start);
    case 'filter': {
      open(lx);
      const predicate = p.expression();
      close(lx);
      return { kind: 'filter', predicate, span: lx.span(start) };
    }
    case 'identity':
      return { kind: 'identity', span: lx.span(start) };
    case 'orderby': {
      lx.expect('(');
      const items = parseOrderByItems(p);
      lx.expect(')', "',' or ')'");
      return { kind: 'orderby', items, span: lx.span(start) };
    }
    case 'top':
    case 'skip': {
      open(lx);
      const at = lx.pos;
      while (isDigit(lx.code())) lx.pos++;
      if (lx.pos === at) throw lx.expected(`a non-negative whole number for ${name}(...)`);
      const count = Number(lx.text.slice(at, lx.pos));
      if (!Number.isSafeInteger(count)) throw lx.error(`${name}(...) is too large`, at);
      close(lx);
      return { kind: name, count, span: lx.span(start) };
    }
    case 'concat': {
      open(lx);
      const branches: ApplyTransformation[][] = [parseApplyExpr(p)];
      do {
        lx.bws();
        lx.expect(',', "',' and a second transformation sequence (concat joins at least two)");
        lx.bws();
        branches.push(parseApplyExpr(p));
        lx.bws();
      } while (lx.char() === ',');
      close(lx);
      return { kind: 'concat', branches, span: lx.span(start) };
    }
    default:
      if (!KEPT_BY_NAME.has(name)) {
        throw lx.error(`'${name}' is not a transformation of $apply; this service supports aggregate(...), groupby(...) and filter(...), separated by '/'`, start);
      }
      if (lx.char() !== '(') throw lx.expected(`'(' after ${name}`);
      skipParentheses(lx);
      return { kind: 'unsupported', name, span: lx.span(start) };
  }
}

/** `groupby((p1, p2, ...)[, applyExpr])`. */
function groupby(p: ExprParser, start: number): ApplyTransformation {
  const lx = p.lx;
  open(lx);
  const groupBy = list(lx, () => groupingItem(p));
  lx.bws();
  let then: ApplyTransformation[] | undefined;
  if (lx.eat(',')) {
    lx.bws();
    then = parseApplyExpr(p);
  }
  close(lx);
  return { kind: 'groupby', groupBy, ...(then === undefined ? {} : { then }), span: lx.span(start) };
}

/** A grouping property path, or `rollup(...)` / `rolluprecursive(...)` kept by name. */
function groupingItem(p: ExprParser): GroupingItem {
  const lx = p.lx;
  const start = lx.pos;
  for (const name of ['rolluprecursive', 'rollup']) {
    if (lx.startsWith(`${name}(`)) {
      lx.pos += name.length;
      skipParentheses(lx);
      lx.node(start);
      return { kind: 'unsupported', name, span: lx.span(start) };
    }
  }
  const path = groupingPath(p);
  return { kind: 'path', path, span: path.span };
}

/**
 * ABNF `groupingProperty`: names and type casts only, through single-valued segments (the binder
 * checks which). Keys, functions, `$count` and annotations (term casts) are not allowed here.
 */
function groupingPath(p: ExprParser): MemberExpr {
  const lx = p.lx;
  if (lx.identifierEnd() < 0) throw lx.expected('a property path to group by');
  const expr = parseNamePath(p);
  if (expr.kind !== 'member') throw lx.error('expected a property path', expr.span.start);
  const bad = expr.segments.find((s) => s.kind !== 'name' && s.kind !== 'cast');
  if (bad !== undefined) throw lx.error('a grouping path is made of property and navigation names and type casts only', bad.span.start);
  if (expr.segments[expr.segments.length - 1]?.kind !== 'name') throw lx.error('a grouping path ends with a property or navigation name, not a type cast', lx.pos);
  return expr;
}

/** One aggregate expression (ABNF `aggregateExpr`). */
function aggregateItem(p: ExprParser): AggregateItem {
  const lx = p.lx;
  const start = lx.pos;
  if (lx.wordAt('$count', start, true)) {
    lx.pos += 6;
    const from = fromClauses(p, 'count');
    return { kind: 'count', path: [], from, alias: asAlias(lx, true) as string, span: lx.span(start) };
  }
  const expr = castOnly(lx) ?? p.expression();
  if (keywordAhead(lx, 'with')) {
    const method = withMethod(lx);
    const from = fromClauses(p, 'method');
    return { kind: 'method', expr, method, from, alias: asAlias(lx, true) as string, span: lx.span(start) };
  }
  const last = expr.kind === 'member' ? expr.segments[expr.segments.length - 1] : undefined;
  if (expr.kind === 'member' && last?.kind === 'count') {
    if (last.filter !== undefined || last.search !== undefined) throw lx.error('$count in aggregate(...) takes no options', last.span.start);
    const from = fromClauses(p, 'count');
    return { kind: 'count', path: expr.segments.slice(0, -1), from, alias: asAlias(lx, true) as string, span: lx.span(start) };
  }
  if (expr.kind !== 'member') throw lx.expected("' with ' and an aggregation method (an expression is aggregated as: expr with sum as alias)");
  const from = fromClauses(p, 'custom');
  // ABNF `aggregateCustom [ [ customFrom ] asAlias ]`: a `from` needs the alias.
  const alias = asAlias(lx, from.length > 0);
  return { kind: 'custom', path: expr, from, ...(alias === undefined ? {} : { alias }), span: lx.span(start) };
}

/**
 * A lone type cast aggregated with a custom method (ABNF `aggrCastPath nonprimAggWith`), e.g.
 * `Self.DigitalProduct with Custom.discount`, which the expression grammar does not allow on its own.
 */
function castOnly(lx: Lexer): MemberExpr | undefined {
  const start = lx.pos;
  const end = lx.dottedNameEnd();
  if (end < 0 || !lx.text.slice(start, end).includes('.') || lx.charAt(end) === '(' || lx.charAt(end) === '/' || lx.charAt(end) === "'") return undefined;
  lx.pos = end;
  lx.node(start);
  const span = lx.span(start);
  return { kind: 'member', root: { kind: 'it' }, segments: [{ kind: 'cast', typeName: lx.text.slice(start, end), span }], span };
}

/** `RWS with RWS method` after `keywordAhead` found `with`. */
function withMethod(lx: Lexer): AggregateMethod {
  lx.pos += lx.whitespaceAt() + 4;
  if (!lx.rws()) throw lx.expected("a space after 'with'");
  const at = lx.pos;
  const end = lx.dottedNameEnd();
  if (end < 0) throw lx.expected('an aggregation method: sum, min, max, average, countdistinct or a qualified custom method');
  const name = lx.text.slice(at, end);
  lx.pos = end;
  lx.node(at);
  if (name.includes('.')) return { kind: 'custom', name };
  const standard = STANDARD.find((m) => m === name);
  if (standard === undefined) {
    throw lx.error(`'${name}' is not an aggregation method: use sum, min, max, average, countdistinct or a namespace-qualified custom method`, at);
  }
  return { kind: 'standard', name: standard };
}

/**
 * `from` clauses: after a method or `$count` each `from` needs its own `with` (ABNF `aggregateFrom`);
 * after a custom aggregate it is optional (`customFrom`). Grouping properties continue over commas.
 */
function fromClauses(p: ExprParser, after: 'method' | 'count' | 'custom'): AggregateFrom[] {
  const lx = p.lx;
  const clauses: AggregateFrom[] = [];
  while (keywordAhead(lx, 'from')) {
    const start = lx.pos + lx.whitespaceAt();
    lx.pos = start + 4;
    if (!lx.rws()) throw lx.expected("a space after 'from'");
    const groupBy: MemberExpr[] = [groupingPath(p)];
    for (;;) {
      const comma = lx.pos + lx.whitespaceAt();
      if (lx.charAt(comma) !== ',') break;
      lx.pos = comma + 1;
      lx.bws();
      groupBy.push(groupingPath(p));
    }
    let method: AggregateMethod | undefined;
    if (keywordAhead(lx, 'with')) method = withMethod(lx);
    else if (after !== 'custom') throw lx.expected("' with ' and the aggregation method of this 'from'", lx.pos + lx.whitespaceAt());
    clauses.push({ groupBy, ...(method === undefined ? {} : { method }), span: lx.span(start) });
  }
  return clauses;
}

/** `RWS as RWS alias` (ABNF `asAlias`); undefined when optional and absent. */
function asAlias(lx: Lexer, required: boolean): string | undefined {
  if (!keywordAhead(lx, 'as')) {
    if (!required) return undefined;
    throw lx.expected("' as ' and an alias for the aggregated value", lx.pos + lx.whitespaceAt());
  }
  lx.pos += lx.whitespaceAt() + 2;
  if (!lx.rws()) throw lx.expected("a space after 'as'");
  return lx.expectIdentifier('an alias (a simple identifier)');
}

/** true when whitespace and then `word` (case-sensitive, ABNF `%s`) follow the cursor. */
function keywordAhead(lx: Lexer, word: string): boolean {
  const ws = lx.whitespaceAt();
  return ws > 0 && lx.wordAt(word, lx.pos + ws, true);
}

/** `( BWS item *( BWS "," BWS item ) BWS )`. */
function list<T>(lx: Lexer, item: () => T): T[] {
  open(lx);
  const items: T[] = [item()];
  for (;;) {
    lx.bws();
    if (!lx.eat(',')) break;
    lx.bws();
    items.push(item());
  }
  close(lx);
  return items;
}

function open(lx: Lexer): void {
  lx.expect('(');
  lx.bws();
}

function close(lx: Lexer): void {
  lx.bws();
  lx.expect(')', "')'");
}

/**
 * Skips a parenthesised argument list in one pass: nesting counted, `'...'` and `"..."` literals
 * skipped whole (a doubled quote stays inside, a backslash escapes in double quotes).
 */
function skipParentheses(lx: Lexer): void {
  const start = lx.pos;
  let depth = 0;
  while (lx.pos < lx.end) {
    const ch = lx.char();
    lx.pos++;
    if (ch === "'" || ch === '"') {
      while (lx.pos < lx.end) {
        const c = lx.char();
        lx.pos++;
        if (c === '\\' && ch === '"') lx.pos++;
        else if (c === ch) {
          if (ch === "'" && lx.char() === "'") lx.pos++;
          else break;
        }
      }
    } else if (ch === '(') {
      depth++;
    } else if (ch === ')') {
      depth--;
      if (depth === 0) return;
    }
  }
  throw lx.error("the '(' has no matching ')'", start);
}
