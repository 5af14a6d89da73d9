/**
 * `$search` expressions (ABNF `search`, `searchExpr`, URL Conventions §5.1.7): words, "phrases",
 * `NOT`, `AND`, `OR` (upper case only), implicit AND between terms, parentheses, and the single-quoted
 * "incomplete expression" form. The parser validates and returns the text; how a search matches is
 * the service's business. Terms are read in a loop and only parentheses recurse, so the depth budget
 * bounds the stack.
 */
import { Lexer } from './lexer.js';
import { checkUrlLength, DEFAULT_PARSE_LIMITS, ParseBudget, type ParseLimits } from './parse-limits.js';

/** Characters that end a search word (ABNF `searchChar` excludes them; `;` and `)` also end nested options). */
const WORD_STOP = new Set([' ', '\t', '(', ')', '"', ';']);

/**
 * Reads a search expression at the cursor, after optional leading whitespace (ABNF `EQ BWS`), and
 * returns its text. Stops before `;` or an unmatched `)`, which is where a nested option ends.
 */
export function parseSearchExpression(lx: Lexer): string {
  lx.bws();
  const start = lx.pos;
  if (lx.char() === "'") {
    incomplete(lx);
  } else {
    expression(lx);
  }
  return lx.text.slice(start, lx.pos);
}

/** Parses a whole decoded `$search` value. */
export function parseSearch(text: string, option = '$search', limits: ParseLimits = DEFAULT_PARSE_LIMITS): string {
  checkUrlLength(text, limits, option);
  const lx = new Lexer(text, option, new ParseBudget(limits));
  const result = parseSearchExpression(lx);
  if (!lx.atEnd) {
    throw lx.char() === ';'
      ? lx.error("';' is not allowed in a search word; put the text in double quotes, e.g. \"a;b\"")
      : lx.expected('a search term, AND, OR or the end of $search');
  }
  return result;
}

/** ABNF `searchExpr-incomplete`: `'...'` with `''` for a quote, taken literally. */
function incomplete(lx: Lexer): void {
  const open = lx.pos;
  lx.pos++;
  for (;;) {
    if (lx.atEnd) throw lx.error('the quoted search text has no closing quote', open);
    if (lx.char() === "'") {
      if (lx.char(1) !== "'") break;
      lx.pos++;
    }
    lx.pos++;
  }
  lx.pos++;
}

/** ABNF `searchExpr`: terms joined by `OR`, `AND` or whitespace (implicit AND). */
function expression(lx: Lexer): void {
  term(lx);
  for (;;) {
    const ws = lx.whitespaceAt();
    if (ws === 0) return;
    const at = lx.pos + ws;
    const op = ['OR', 'AND'].find((w) => isOperator(lx, w, at));
    if (op !== undefined) {
      lx.pos = at + op.length;
      lx.bws();
    } else if (startsTerm(lx, at)) {
      lx.pos = at;
    } else {
      return;
    }
    term(lx);
  }
}

/** `OR`/`AND`/`NOT` are operators only between terms; `$search=AND OR` searches for two words. */
function isOperator(lx: Lexer, word: string, at: number): boolean {
  if (!lx.wordAt(word, at, true)) return false;
  const ws = lx.whitespaceAt(at + word.length);
  return ws > 0 && startsTerm(lx, at + word.length + ws);
}

/** True if a search term can start at `at` (ABNF `searchParenExpr`, `searchNegateExpr`, `searchPhrase`, `searchWord`). */
function startsTerm(lx: Lexer, at: number): boolean {
  const ch = lx.charAt(at);
  return ch !== '' && ch !== "'" && (ch === '(' || ch === '"' || !WORD_STOP.has(ch));
}

/** One term; `NOT` is an operator only when a term follows it, otherwise it is the word NOT. */
function term(lx: Lexer): void {
  while (isOperator(lx, 'NOT', lx.pos)) {
    lx.pos += 3;
    lx.bws();
  }
  const start = lx.pos;
  const ch = lx.char();
  if (ch === '(') {
    lx.enter(start);
    lx.pos++;
    lx.bws();
    expression(lx);
    lx.bws();
    lx.expect(')', "')' closing the search group");
    lx.leave();
    return;
  }
  if (ch === '"') {
    const close = lx.text.indexOf('"', start + 1);
    if (close < 0 || close >= lx.end) throw lx.error('the search phrase has no closing double quote', start);
    if (close === start + 1) throw lx.error('a search phrase may not be empty', start);
    lx.pos = close + 1;
    return;
  }
  if (!startsTerm(lx, start)) throw lx.expected('a search word, a "phrase" or (', start);
  while (!lx.atEnd && !WORD_STOP.has(lx.char())) lx.pos++;
}
