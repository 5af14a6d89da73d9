/**
 * `$compute` items (ABNF `computeItem = commonExpr RWS "as" RWS computedProperty`, URL Conventions
 * 4.01 §5.1.10). The syntax is checked here, including every expression; the AST keeps the text
 * because this service does not evaluate computed properties.
 */
import type { ExprParser } from './parse-expression.js';

/** Reads `item *( "," item )` at the cursor and returns their text. */
export function parseComputeItems(p: ExprParser): string {
  const lx = p.lx;
  const start = lx.pos;
  do {
    p.expression();
    const ws = lx.whitespaceAt();
    if (ws === 0 || !lx.wordAt('as', lx.pos + ws)) throw lx.expected("' as ' and the name of the computed property", lx.pos + ws);
    lx.pos += ws + 2;
    if (!lx.rws()) throw lx.expected("a space after 'as'");
    lx.expectIdentifier('the name of the computed property');
  } while (lx.eat(','));
  return lx.text.slice(start, lx.pos);
}
