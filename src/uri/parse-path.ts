/**
 * The resource path below the service root (ABNF §1 `resourcePath`, URL Conventions 4.01 §4): split
 * the undecoded path at `/` first (so `%2F` stays inside a key), decode each segment once, then read
 * it: names with key predicates or function parameters, qualified names (casts, bound operations),
 * `$count`, `$ref`, `$value`, `$filter(...)`, `$each`, `$query`, `$metadata`, `$batch`, `$entity`,
 * `$all`, `$crossjoin(...)`, and key-as-segment values. Only rules that need no model are enforced
 * here (e.g. `$count` ends the path); the binder resolves the names.
 */
import type { PathSegment, ResourcePath } from './ast.js';
import { Lexer } from './lexer.js';
import { checkUrlLength, DEFAULT_PARSE_LIMITS, ParseBudget, type ParseLimits } from './parse-limits.js';
import { percentDecode } from './percent-decode.js';
import { ExprParser } from './parse-expression.js';
import { groupToKey, groupToParams, parseKeyValue, parseParenGroup, type ParenGroup } from './parse-key.js';
import { checkSegmentOrder } from './path-segment-order.js';

const SIMPLE_DOLLAR: Readonly<Record<string, PathSegment['kind']>> = {
  $metadata: 'metadata',
  $batch: 'batch',
  $entity: 'entity',
  $all: 'all',
  $count: 'count',
  $ref: 'ref',
  $value: 'value',
  $each: 'each',
  $query: 'query',
};

/** Parses a raw (still percent-encoded) path such as `/companies(1)/items`; `/` or '' is the service document. */
export function parseResourcePath(rawPath: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): ResourcePath {
  checkUrlLength(rawPath, limits, 'path');
  const lead = rawPath.startsWith('/') ? 1 : 0;
  const raw = rawPath.slice(lead);
  if (raw === '') return { segments: [] };
  const decoded: string[] = [];
  let rawOffset = lead;
  for (const piece of raw.split('/')) {
    decoded.push(percentDecode(piece, 'path', rawOffset));
    rawOffset += piece.length + 1;
  }
  const text = (lead === 1 ? '/' : '') + decoded.join('/');
  const budget = new ParseBudget(limits);
  const segments: PathSegment[] = [];
  let start = lead;
  for (const piece of decoded) {
    const lx = new Lexer(text, 'path', budget, start, start + piece.length);
    segments.push(parseSegment(lx, segments.length === 0));
    start += piece.length + 1;
  }
  checkSegmentOrder(segments, new Lexer(text, 'path', budget));
  return { segments };
}

/** One decoded segment, which must be read completely. */
function parseSegment(lx: Lexer, first: boolean): PathSegment {
  const start = lx.pos;
  lx.node(start);
  if (lx.atEnd) throw lx.error("empty path segment (two '/' in a row?)");
  if (lx.char() === '$') return dollarSegment(lx, first);
  const nameEnd = lx.dottedNameEnd();
  const next = lx.charAt(nameEnd);
  if (nameEnd >= 0 && (next === '' || next === '(')) return nameSegment(lx, nameEnd);
  const piece = lx.text.slice(start, lx.end);
  // Key-as-segment values and ordinal indexes (`People/O'Neil`, `Addresses/-1`) are any other text,
  // except that parentheses mean somebody meant a key predicate and got it wrong.
  if (first || /[()]/.test(piece)) {
    throw lx.expected(first ? 'an entity set, singleton or function import name' : "'(' or the end of the segment", nameEnd < 0 ? start : nameEnd);
  }
  lx.pos = lx.end;
  return { kind: 'literalSegment', text: piece, span: lx.span(start) };
}

/** `$`-segments are case-sensitive (ABNF note on `odataRelativeUri`). */
function dollarSegment(lx: Lexer, first: boolean): PathSegment {
  const start = lx.pos;
  lx.pos++;
  const name = `$${lx.identifier() ?? ''}`;
  const simple = SIMPLE_DOLLAR[name];
  if (simple !== undefined) {
    if (!lx.atEnd) throw lx.expected(`the end of the segment after ${name}`);
    return { kind: simple, span: lx.span(start) } as PathSegment;
  }
  if (name === '$filter') {
    lx.expect('(', "'(' after $filter");
    lx.bws();
    const predicate = new ExprParser(lx).expression();
    lx.bws();
    lx.expect(')', "')' closing $filter(");
    if (!lx.atEnd) throw lx.expected('the end of the segment after $filter(...)');
    return { kind: 'filter', predicate, span: lx.span(start) };
  }
  if (name === '$crossjoin' && first) {
    lx.expect('(', "'(' after $crossjoin");
    const entitySets: string[] = [];
    do entitySets.push(lx.expectIdentifier('an entity set name'));
    while (lx.eat(','));
    lx.expect(')', "',' or ')'");
    if (!lx.atEnd) throw lx.expected('the end of the segment after $crossjoin(...)');
    return { kind: 'crossjoin', entitySets, span: lx.span(start) };
  }
  throw lx.error(`unknown segment '${name}' (the $-segments are $metadata, $batch, $entity, $all, $crossjoin, $count, $ref, $value, $filter, $each and $query, in that case)`, start);
}

/**
 * A (qualified) name with up to two parenthesised groups. One group is a key, except `()` and, after
 * a qualified name, named values, which are function parameters; with two groups `F(p=1)(2)` the
 * first holds the parameters and the second the key (ABNF `entityColFunctionImportCall` + key).
 */
function nameSegment(lx: Lexer, nameEnd: number): PathSegment {
  const start = lx.pos;
  const name = lx.text.slice(start, nameEnd);
  lx.pos = nameEnd;
  const groups: ParenGroup[] = [];
  while (lx.char() === '(') {
    if (groups.length === 2) throw lx.error('at most a parameter list and a key may follow a name');
    groups.push(parseParenGroup(lx, () => parseKeyValue(lx), () => parseKeyValue(lx)));
  }
  if (!lx.atEnd) throw lx.expected("'(' or the end of the segment");
  const qualified = name.includes('.');
  let params = undefined;
  let key = undefined;
  const [g0, g1] = groups;
  if (g0 !== undefined && g1 !== undefined) {
    params = groupToParams(g0);
    key = groupToKey(g1);
    if (params === undefined) throw lx.error('the first parentheses must hold named function parameters', g0.span.start);
    if (key === undefined) throw lx.error('the second parentheses must hold a key', g1.span.start);
  } else if (g0 !== undefined) {
    if (g0.kind === 'empty' || (g0.kind === 'named' && qualified)) params = groupToParams(g0);
    else key = groupToKey(g0);
  }
  const extra = { ...(params === undefined ? {} : { params }), ...(key === undefined ? {} : { key }) };
  return qualified
    ? { kind: 'qualified', name, ...extra, span: lx.span(start) }
    : { kind: 'identifier', name, ...extra, span: lx.span(start) };
}
