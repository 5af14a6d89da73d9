/**
 * Parenthesised groups after a name: key predicates (ABNF `keyPredicate`: `(1)`, `(ID=1,Size=5)`,
 * `(@k)`) and function parameters (`functionParameters`: `()`, `(color='red')`). Without the model the
 * two look alike, so the group is read once and then interpreted by position: see `groupToKey`.
 */
import type { AliasRef, Expr, KeyPredicate, Literal, Span } from './ast.js';
import type { Lexer } from './lexer.js';
import { scanPrimitiveLiteral } from './parse-literal.js';

/** One `name=value` inside parentheses. */
export interface ParamPair {
  readonly name: string;
  readonly value: Expr;
}

/** A parenthesised group as written: empty, one unnamed value, or named values. */
export type ParenGroup =
  | { readonly kind: 'empty'; readonly span: Span }
  | { readonly kind: 'single'; readonly value: Expr; readonly span: Span }
  | { readonly kind: 'named'; readonly pairs: readonly ParamPair[]; readonly span: Span };

/**
 * Reads `( ... )` at the cursor. `single` reads an unnamed value, `named` the value after `name=`;
 * BWS is allowed around commas as in ABNF `functionParameters`.
 */
export function parseParenGroup(lx: Lexer, single: () => Expr, named: () => Expr): ParenGroup {
  const start = lx.pos;
  lx.expect('(');
  lx.bws();
  if (lx.eat(')')) return { kind: 'empty', span: lx.span(start) };
  const nameEnd = lx.identifierEnd();
  if (nameEnd < 0 || lx.charAt(nameEnd) !== '=') {
    const value = single();
    lx.bws();
    lx.expect(')', "')' after the key value (a key with several parts is written (Name1=value1,Name2=value2))");
    return { kind: 'single', value, span: lx.span(start) };
  }
  const pairs: ParamPair[] = [];
  for (;;) {
    const name = lx.expectIdentifier('a parameter or key property name');
    if (pairs.some((p) => p.name === name)) throw lx.error(`'${name}' is given twice`, lx.pos - name.length);
    lx.expect('=');
    pairs.push({ name, value: named() });
    lx.bws();
    if (lx.eat(')')) return { kind: 'named', pairs, span: lx.span(start) };
    lx.expect(',', "',' or ')'");
    lx.bws();
  }
}

/** A key value (ABNF `keyPropertyValue` or `parameterAlias`): a literal or `@alias`, as an expression. */
export function parseKeyValue(lx: Lexer): Expr {
  const start = lx.pos;
  if (lx.char() === '@') {
    lx.pos++;
    const name = lx.expectIdentifier('a parameter alias name after @');
    lx.node(start);
    return { kind: 'alias', name, span: lx.span(start) };
  }
  const literal = scanPrimitiveLiteral(lx);
  if (literal === undefined) throw lx.expected("a key value (a GUID such as 2f0c0a6e-1b2c-4d5e-8f90-0123456789ab, a number, a 'quoted string') or a @parameterAlias");
  lx.node(start);
  return { kind: 'literal', literal, span: lx.span(start) };
}

/** The group as a key predicate, if its values are all literals or aliases and it is not empty. */
export function groupToKey(group: ParenGroup): KeyPredicate | undefined {
  if (group.kind === 'empty') return undefined;
  if (group.kind === 'single') {
    const value = keyValueOf(group.value);
    return value === undefined ? undefined : { kind: 'single', value, span: group.span };
  }
  const pairs: { name: string; value: Literal | AliasRef }[] = [];
  for (const p of group.pairs) {
    const value = keyValueOf(p.value);
    if (value === undefined) return undefined;
    pairs.push({ name: p.name, value });
  }
  return { kind: 'named', pairs, span: group.span };
}

/** The group as function parameters: `()` or named values; an unnamed value is never a parameter list. */
export function groupToParams(group: ParenGroup): readonly ParamPair[] | undefined {
  if (group.kind === 'empty') return [];
  return group.kind === 'named' ? group.pairs : undefined;
}

function keyValueOf(e: Expr): Literal | AliasRef | undefined {
  if (e.kind === 'literal') return e.literal;
  if (e.kind === 'alias') return { kind: 'aliasRef', name: e.name };
  return undefined;
}
