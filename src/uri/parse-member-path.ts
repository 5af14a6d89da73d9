/**
 * Member paths in expressions (ABNF `firstMemberExpr`, `memberExpr`, `rootExpr`, `collectionPathExpr`):
 * `Supplier/Address/Street`, `$it/Name`, `$root/Employees('A1')/Name`, `@alias/Price`, type casts
 * `Model.VipCustomer/Rating`, bound functions `Model.BestProduct()/Name`, keys `Items(1)`, `$filter(...)`,
 * `$count`, annotations `@Core.Messages`, and the lambda operators `any`/`all` that end a path.
 * Without the model, a name is a name: the binder decides whether it is a property or a navigation.
 */
import type { Expr, MemberRoot, MemberSegment } from './ast.js';
import type { ExprParser } from './parse-expression.js';
import type { Lexer } from './lexer.js';
import { groupToKey, groupToParams, parseKeyValue, parseParenGroup } from './parse-key.js';
import { parseSearchExpression } from './parse-search.js';

/** `$it`, `$this` and `$root/...` (ABNF `implicitVariableExpr`, `rootExpr`; `$`-names are case-sensitive). */
export function parseDollarRoot(p: ExprParser): Expr {
  const lx = p.lx;
  const start = lx.pos;
  if (lx.wordAt('$it', start, true)) {
    lx.pos += 3;
    return continuePath(p, start, { kind: 'it' }, []);
  }
  if (lx.wordAt('$this', start, true)) {
    lx.pos += 5;
    return continuePath(p, start, { kind: 'this' }, []);
  }
  if (lx.wordAt('$root', start, true)) {
    lx.pos += 5;
    if (lx.char() !== '/') throw lx.expected("'/' and an entity set or singleton after $root");
    return continuePath(p, start, { kind: 'root' }, []);
  }
  throw lx.expected('$it, $this or $root/...');
}

/** `@alias` (ABNF `parameterAlias`), `@alias/path`, or an annotation `@NS.Term[#qualifier]` on `$it`. */
export function parseAtRoot(p: ExprParser): Expr {
  const lx = p.lx;
  const start = lx.pos;
  const end = lx.dottedNameEnd(start + 1);
  if (end < 0) throw lx.expected('a parameter alias or annotation name after @', start + 1);
  const name = lx.text.slice(start + 1, end);
  if (name.includes('.') || lx.charAt(end) === '#') {
    return continuePath(p, start, { kind: 'it' }, [annotationSegment(lx)]);
  }
  lx.pos = end;
  if (lx.char() === '/') return continuePath(p, start, { kind: 'alias', name }, []);
  lx.node(start);
  return { kind: 'alias', name, span: lx.span(start) };
}

/** A path that starts with a name: a property, a lambda variable, a type cast or a qualified function. */
export function parseNamePath(p: ExprParser): Expr {
  const lx = p.lx;
  const start = lx.pos;
  const end = lx.dottedNameEnd();
  const name = lx.text.slice(start, end);
  const next = lx.charAt(end);
  if (name.includes('.') && next !== '(' && next !== '/') {
    throw lx.error(
      `'${name}' must be followed by '(' for a function call, '/' for a type cast, or a quoted value for an enum literal`,
      end,
    );
  }
  const lower = name.toLowerCase();
  if ((lower === 'any' || lower === 'all') && next === '(') {
    throw lx.error(`${lower}() must follow a collection path, as in Items/${lower}(d:d/Quantity gt 1)`, end);
  }
  if (next !== '(' && p.isVariable(name)) {
    lx.pos = end;
    return continuePath(p, start, { kind: 'variable', name }, []);
  }
  const segments: MemberSegment[] = [];
  nameSegment(p, segments);
  return continuePath(p, start, { kind: 'it' }, segments);
}

/** Reads `/segment` repeatedly; `$count` and `any`/`all` end the path. */
function continuePath(p: ExprParser, start: number, root: MemberRoot, segments: MemberSegment[]): Expr {
  const lx = p.lx;
  while (lx.char() === '/') {
    lx.pos++;
    const at = lx.pos;
    if (lx.wordAt('$count', at, true)) {
      segments.push(countSegment(p));
      break;
    }
    if (lx.startsWith('$filter(')) {
      lx.pos += 7;
      lx.node(at);
      lx.expect('(');
      lx.bws();
      const predicate = p.expression();
      lx.bws();
      lx.expect(')', "')' closing $filter(");
      segments.push({ kind: 'filter', predicate, span: lx.span(at) });
      keySegments(p, segments);
      continue;
    }
    if ((lx.wordAt('any', at) || lx.wordAt('all', at)) && lx.charAt(at + 3) === '(') {
      return lambda(p, start, root, segments);
    }
    if (lx.char() === '@') {
      segments.push(annotationSegment(lx));
      continue;
    }
    if (lx.identifierEnd() < 0) throw lx.expected("a property, type or function name after '/'");
    nameSegment(p, segments);
  }
  lx.node(start);
  return { kind: 'member', root, segments, span: lx.span(start) };
}

/**
 * A name with optional parentheses. Dotted names are type casts, or bound functions when followed by
 * parameters; plain names with a key become a name and a key segment, with `()` or expression-valued
 * parameters a function (`BestProduct()`, ABNF `boundFunctionExpr` without namespace).
 */
function nameSegment(p: ExprParser, segments: MemberSegment[]): void {
  const lx = p.lx;
  const start = lx.pos;
  const end = lx.dottedNameEnd();
  const name = lx.text.slice(start, end);
  lx.pos = end;
  lx.node(start);
  if (lx.char() !== '(') {
    segments.push(name.includes('.') ? { kind: 'cast', typeName: name, span: lx.span(start) } : { kind: 'name', name, span: lx.span(start) });
    return;
  }
  const group = parseParenGroup(lx, () => parseKeyValue(lx), () => p.expression());
  const key = groupToKey(group);
  const params = groupToParams(group);
  if (params !== undefined && (name.includes('.') || key === undefined)) {
    segments.push({ kind: 'function', name, params, span: lx.span(start) });
  } else if (key !== undefined) {
    const nameSpan = { start, end };
    segments.push(name.includes('.') ? { kind: 'cast', typeName: name, span: nameSpan } : { kind: 'name', name, span: nameSpan });
    segments.push({ kind: 'key', key, span: group.span });
  }
  keySegments(p, segments);
}

/** Further `(key)` groups, e.g. after a function or `$filter(...)`: `Products/$filter(...)(ID='Sugar')`. */
function keySegments(p: ExprParser, segments: MemberSegment[]): void {
  const lx = p.lx;
  while (lx.char() === '(') {
    const at = lx.pos;
    const group = parseParenGroup(lx, () => parseKeyValue(lx), () => parseKeyValue(lx));
    const key = groupToKey(group);
    if (key === undefined) throw lx.error('expected a key predicate such as (1) or (ID=1)', at);
    lx.node(at);
    segments.push({ kind: 'key', key, span: group.span });
  }
}

/** `$count` with optional `($filter=...;$search=...)` (ABNF `collectionPathExpr`). */
function countSegment(p: ExprParser): MemberSegment {
  const lx = p.lx;
  const start = lx.pos;
  lx.pos += 6;
  lx.node(start);
  if (lx.char() !== '(') return { kind: 'count', span: lx.span(start) };
  lx.pos++;
  let filter: Expr | undefined;
  let search: string | undefined;
  for (;;) {
    const at = lx.pos;
    const name = (lx.eat('$') ? '$' : '') + lx.expectIdentifier('$filter or $search');
    const option = name.toLowerCase().replace(/^\$/, '');
    lx.expect('=');
    if (option === 'filter' && filter === undefined) filter = p.expression();
    else if (option === 'search' && search === undefined) search = parseSearchExpression(lx);
    else throw lx.error(`only $filter and $search (each once) are allowed inside $count(...), not ${name}`, at);
    if (lx.eat(')')) break;
    lx.expect(';', "';' or ')'");
  }
  return { kind: 'count', span: lx.span(start), ...(filter === undefined ? {} : { filter }), ...(search === undefined ? {} : { search }) };
}

/** ABNF `annotationInQuery = AT [ namespace "." ] termName [ HASH annotationQualifier ]` (the `#` decoded from `%23`). */
export function annotationSegment(lx: Lexer): MemberSegment {
  const start = lx.pos;
  lx.expect('@');
  const end = lx.dottedNameEnd();
  if (end < 0) throw lx.expected('an annotation term name after @');
  lx.pos = end;
  if (lx.eat('#')) lx.expectIdentifier('an annotation qualifier after #');
  lx.node(start);
  return { kind: 'annotation', term: lx.text.slice(start + 1, lx.pos), span: lx.span(start) };
}

/** ABNF `anyExpr`/`allExpr`: `any()`, `any(d:predicate)`, `all(d:predicate)`. */
function lambda(p: ExprParser, start: number, root: MemberRoot, segments: MemberSegment[]): Expr {
  const lx = p.lx;
  const at = lx.pos;
  const operator = lx.text.slice(at, at + 3).toLowerCase() === 'any' ? 'any' : 'all';
  const collection = { kind: 'member' as const, root, segments, span: { start, end: at - 1 } };
  lx.node(start);
  lx.pos += 4;
  lx.bws();
  if (lx.eat(')')) {
    if (operator === 'all') throw lx.error('all() needs a lambda variable and a predicate, as in all(d:d/Quantity gt 1)', lx.pos - 1);
    return { kind: 'lambda', operator, collection, span: lx.span(start) };
  }
  const variable = lx.expectIdentifier(`a lambda variable name, as in ${operator}(d:d/Quantity gt 1)`);
  lx.bws();
  lx.expect(':', "':' after the lambda variable");
  lx.bws();
  const predicate = p.withVariable(variable, () => p.expression());
  lx.bws();
  lx.expect(')', `')' closing ${operator}(`);
  return { kind: 'lambda', operator, collection, variable, predicate, span: lx.span(start) };
}
