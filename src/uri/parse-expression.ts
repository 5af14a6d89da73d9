/**
 * Common expressions (ABNF §4 `commonExpr`/`boolCommonExpr`) by precedence climbing. The ABNF chains
 * operators right-recursively and leaves precedence to URL Conventions 4.01 §5.1.1.16, whose table
 * this parser follows: primary (`/`, `has`, `in`, calls) > unary (`-`, `not`) > multiplicative >
 * additive > relational > equality > `and` > `or`; binary operators associate to the left.
 * Operators at one level are consumed in a loop, so `a and b and ...` does not deepen the stack;
 * every recursion (parentheses, operands of unary operators, arguments) passes the depth budget first.
 */
import type { BinaryOperator, Expr, Literal } from './ast.js';
import { isIdentifierStart, Lexer } from './lexer.js';
import { checkUrlLength, DEFAULT_PARSE_LIMITS, ParseBudget, type ParseLimits } from './parse-limits.js';
import { scanPrimitiveLiteral } from './parse-literal.js';
import { parseJson } from './parse-json.js';
import { isCanonicalFunction, parseMethodCall } from './parse-method-call.js';
import { parseDollarRoot, parseAtRoot, parseNamePath } from './parse-member-path.js';

/** Binding power of each binary operator (URL Conventions 4.01 §5.1.1.16); higher binds tighter. */
const BINDING_POWER: Readonly<Record<BinaryOperator, number>> = {
  or: 10,
  and: 20,
  eq: 30,
  ne: 30,
  gt: 40,
  ge: 40,
  lt: 40,
  le: 40,
  add: 50,
  sub: 50,
  mul: 60,
  div: 60,
  divby: 60,
  mod: 60,
  // `has` and `in` are in the "Primary" group of the table: they bind tighter than unary operators.
  has: 80,
  in: 80,
};
const OPERATORS = Object.keys(BINDING_POWER) as BinaryOperator[];
const UNARY_POWER = 70;

/** An operator found after an operand: its name, where its word starts, and where its operand starts. */
interface OperatorAhead {
  readonly operator: BinaryOperator;
  readonly at: number;
  readonly operandAt: number;
}

/** The expression parser over one lexer; also tracks lambda variables in scope. */
export class ExprParser {
  private readonly variables: string[] = [];

  constructor(readonly lx: Lexer) {}

  /** Parses a `commonExpr` whose operators bind tighter than `minPower`. */
  expression(minPower = 0): Expr {
    const lx = this.lx;
    lx.enter();
    try {
      let left = this.unary();
      for (;;) {
        const ahead = this.operatorAhead();
        if (ahead === undefined || BINDING_POWER[ahead.operator] <= minPower) return left;
        lx.pos = ahead.operandAt;
        const right =
          ahead.operator === 'has'
            ? this.enumOperand()
            : ahead.operator === 'in'
              ? this.inOperand()
              : this.expression(BINDING_POWER[ahead.operator]);
        lx.node(ahead.at);
        left = { kind: 'binary', operator: ahead.operator, left, right, span: { start: left.span.start, end: lx.pos } };
      }
    } finally {
      lx.leave();
    }
  }

  /** True if `name` is a lambda variable in scope (ABNF `lambdaVariableExpr`). */
  isVariable(name: string): boolean {
    return this.variables.includes(name);
  }

  /** Parses `predicate` with `name` in scope as a lambda variable. */
  withVariable<T>(name: string, body: () => T): T {
    this.variables.push(name);
    try {
      return body();
    } finally {
      this.variables.pop();
    }
  }

  /** RWS, an operator word (any case, 4.01 §5.1.1.1), RWS: without consuming anything. */
  private operatorAhead(): OperatorAhead | undefined {
    const lx = this.lx;
    const ws = lx.whitespaceAt();
    if (ws === 0) return undefined;
    const at = lx.pos + ws;
    const operator = OPERATORS.find((op) => lx.wordAt(op, at));
    if (operator === undefined) return undefined;
    const after = at + operator.length;
    const ws2 = lx.whitespaceAt(after);
    if (ws2 === 0) throw lx.expected(`a space after '${lx.text.slice(at, after)}'`, after);
    return { operator, at, operandAt: after + ws2 };
  }

  /** `-x` and `not x`; a minus before a number is part of the literal (`-1`, ABNF `primitiveLiteral` first). */
  private unary(): Expr {
    const lx = this.lx;
    const start = lx.pos;
    if (lx.char() === '-') {
      const literal = scanPrimitiveLiteral(lx);
      if (literal !== undefined) return this.literal(literal, start);
      lx.pos++;
      lx.bws();
      const operand = this.expression(UNARY_POWER);
      lx.node(start);
      return { kind: 'negate', operand, span: lx.span(start) };
    }
    if (lx.wordAt('not') && (lx.whitespaceAt(start + 3) > 0 || lx.charAt(start + 3) === '(')) {
      lx.pos += 3;
      lx.bws();
      const operand = this.expression(UNARY_POWER);
      lx.node(start);
      return { kind: 'not', operand, span: lx.span(start) };
    }
    return this.primary();
  }

  /** Literals, parentheses, JSON, `$it`/`$root`/`$this`, aliases, function calls and member paths. */
  private primary(): Expr {
    const lx = this.lx;
    const start = lx.pos;
    const ch = lx.char();
    if (ch === '(') return this.parenthesised(false);
    if (ch === '[' || ch === '{') return parseJson(this);
    if (ch === '$') return parseDollarRoot(this);
    if (ch === '@') return parseAtRoot(this);
    const literal = scanPrimitiveLiteral(lx);
    if (literal !== undefined) return this.literal(literal, start);
    if (isIdentifierStart(ch)) {
      const nameEnd = lx.dottedNameEnd();
      if (lx.charAt(nameEnd) === '(' && isCanonicalFunction(lx.text.slice(start, nameEnd))) return parseMethodCall(this, nameEnd);
      return parseNamePath(this);
    }
    throw lx.expected('an expression');
  }

  /** `( expr )`; a comma inside means a list, which the grammar only allows after `in`. */
  private parenthesised(afterIn: boolean): Expr {
    const lx = this.lx;
    lx.expect('(');
    lx.bws();
    const inner = this.expression();
    lx.bws();
    if (lx.char() === ',') {
      throw lx.error(
        afterIn
          ? "a list after 'in' may only contain literal values such as 'a' or 42"
          : "a list of values in parentheses is only allowed after 'in'",
      );
    }
    lx.expect(')', "')'");
    return inner;
  }

  private literal(literal: Literal, start: number): Expr {
    this.lx.node(start);
    return { kind: 'literal', literal, span: this.lx.span(start) };
  }

  /** ABNF `hasExpr`: the right operand is an enum literal (`NS.Type'Member'`, or `'Member'` typed by context). */
  private enumOperand(): Expr {
    const lx = this.lx;
    const start = lx.pos;
    const literal = scanPrimitiveLiteral(lx);
    if (literal === undefined || (literal.kind !== 'enum' && literal.kind !== 'string')) {
      lx.pos = start;
      throw lx.expected("an enum literal such as Namespace.Color'Red' after 'has'");
    }
    return this.literal(literal, start);
  }

  /** ABNF `inExpr`: a parenthesised list of literals, or an expression yielding a collection. */
  private inOperand(): Expr {
    const lx = this.lx;
    const start = lx.pos;
    if (lx.char() !== '(') return this.expression(BINDING_POWER.in);
    lx.pos++;
    lx.bws();
    const items: Expr[] = [];
    if (lx.char() !== ')') {
      const first = this.listItem();
      lx.bws();
      if (first === undefined || (lx.char() !== ',' && lx.char() !== ')')) {
        // Not a list: a parenthesised expression such as `(FirstName)`.
        lx.pos = start;
        return this.parenthesised(true);
      }
      items.push(first);
      while (lx.eat(',')) {
        lx.bws();
        const item = this.listItem();
        if (item === undefined) throw lx.expected("a literal value (a list after 'in' may only contain literals)");
        items.push(item);
        lx.bws();
      }
    }
    lx.expect(')', "',' or ')'");
    lx.node(start);
    return { kind: 'list', items, span: lx.span(start) };
  }

  private listItem(): Expr | undefined {
    const start = this.lx.pos;
    const literal = scanPrimitiveLiteral(this.lx);
    return literal === undefined ? undefined : this.literal(literal, start);
  }
}

/** Parses a `commonExpr` at the lexer's cursor, leaving the cursor after it. */
export function parseCommonExpr(lx: Lexer): Expr {
  return new ExprParser(lx).expression();
}

/**
 * Parses a whole decoded text as one common expression (ABNF `commonExpr`), e.g. a `$filter` value.
 * `option` names the query option in error messages.
 */
export function parseExpression(text: string, option = '$filter', limits: ParseLimits = DEFAULT_PARSE_LIMITS): Expr {
  checkUrlLength(text, limits, option);
  const lx = new Lexer(text, option, new ParseBudget(limits));
  const expr = parseCommonExpr(lx);
  expectEndOfExpression(lx);
  return expr;
}

/** Fails unless the cursor is at the end, naming what a person most likely got wrong. */
export function expectEndOfExpression(lx: Lexer): void {
  if (lx.atEnd) return;
  const ws = lx.whitespaceAt();
  if (ws > 0 && lx.pos + ws >= lx.end) throw lx.error('unexpected space at the end of the expression');
  if (ws > 0) throw lx.expected('an operator such as eq, ne, gt, and, or, add', lx.pos + ws);
  if (lx.char() === ')') throw lx.error("unexpected ')' without a matching '('");
  throw lx.expected('an operator or the end of the expression');
}
