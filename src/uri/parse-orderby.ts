/**
 * `$orderby` items (ABNF `orderbyItem = commonExpr [ RWS ( "asc" / "desc" ) ]`, URL Conventions 4.01
 * §5.1.4). Any common expression can be a sort key, including a Boolean one such as `Cost ge Revenue`.
 */
import type { OrderByItem } from './ast.js';
import type { ExprParser } from './parse-expression.js';

/** Reads `item *( "," item )` at the cursor. */
export function parseOrderByItems(p: ExprParser): OrderByItem[] {
  const lx = p.lx;
  const items: OrderByItem[] = [];
  do {
    const start = lx.pos;
    const expr = p.expression();
    let direction: 'asc' | 'desc' = 'asc';
    const ws = lx.whitespaceAt();
    if (ws > 0) {
      const at = lx.pos + ws;
      const word = ['asc', 'desc'].find((w) => lx.wordAt(w, at));
      if (word === undefined) throw lx.expected("asc, desc, ',' or an operator", at);
      direction = word === 'desc' ? 'desc' : 'asc';
      lx.pos = at + word.length;
    }
    lx.node(start);
    items.push({ expr, direction, span: lx.span(start) });
  } while (lx.eat(','));
  return items;
}
