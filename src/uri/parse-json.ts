/**
 * JSON arrays and objects inside URLs (ABNF §5 `arrayOrObject`): `["red","green"]`, `{"Name":"x"}`,
 * whose values may themselves be common expressions (`[FirstName,2 add 3]`). The parser checks the
 * syntax and keeps the text; nested values count against the depth and node budgets like any other.
 */
import type { Expr } from './ast.js';
import { isHexDigit, fail } from './literal-scanners.js';
import type { Lexer } from './lexer.js';
import type { ExprParser } from './parse-expression.js';

/** Parses an array or object at the cursor (`[` or `{`) into a `json` node with its raw text. */
export function parseJson(p: ExprParser): Expr {
  const lx = p.lx;
  const start = lx.pos;
  lx.enter(start);
  try {
    const close = lx.char() === '[' ? ']' : '}';
    lx.pos++;
    lx.bws();
    if (!lx.eat(close)) {
      for (;;) {
        if (close === '}') {
          jsonString(lx, 'a member name in double quotes');
          lx.bws();
          lx.expect(':', "':' after the member name");
          lx.bws();
        }
        value(p);
        lx.bws();
        if (lx.eat(close)) break;
        lx.expect(',', `',' or '${close}'`);
        lx.bws();
      }
    }
    lx.node(start);
    return { kind: 'json', text: lx.text.slice(start, lx.pos), span: lx.span(start) };
  } finally {
    lx.leave();
  }
}

/** ABNF `valueInUrl = stringInUrl / commonExpr`. */
function value(p: ExprParser): void {
  if (p.lx.char() === '"') jsonString(p.lx, 'a JSON string');
  else p.expression();
}

function jsonString(lx: Lexer, what: string): void {
  if (lx.char() !== '"') throw lx.expected(what);
  const end = scanJsonString(lx, lx.pos);
  if (end < 0) throw lx.error('invalid JSON string: close it with " and escape " and \\ as \\" and \\\\', -1 - end);
  lx.pos = end;
}

/** ABNF `stringInUrl`: a JSON string with its escapes (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\uXXXX`). */
export function scanJsonString(lx: Lexer, at: number): number {
  if (lx.charAt(at) !== '"') return fail(at);
  let i = at + 1;
  for (;;) {
    const ch = lx.charAt(i);
    if (ch === '') return fail(i);
    if (ch === '"') return i + 1;
    if (ch === '\\') {
      const esc = lx.charAt(i + 1);
      if (esc === 'u') {
        for (let k = 2; k < 6; k++) if (!isHexDigit(lx.text.charCodeAt(i + k)) || i + k >= lx.end) return fail(i + k);
        i += 6;
        continue;
      }
      if (!'"\\/bfnrt'.includes(esc) || esc === '') return fail(i + 1);
      i += 2;
      continue;
    }
    i++;
  }
}
