/**
 * `$expand` items (ABNF `expandItem`/`expandPath`, URL Conventions 4.01 §5.1.2): navigation paths
 * through complex properties and type casts, `*`, `$value`, annotations, the `/$ref` and `/$count`
 * suffixes, and nested options in parentheses. Names are not checked against the model here.
 */
import type { ExpandItem, MemberSegment, NestedQueryOptions } from './ast.js';
import type { ExprParser } from './parse-expression.js';
import { annotationSegment } from './parse-member-path.js';
import { NESTED_OPTIONS, parseNestedOptions } from './parse-nested-options.js';

/** Reads `item *( "," item )` at the cursor. */
export function parseExpandItems(p: ExprParser): ExpandItem[] {
  const items: ExpandItem[] = [];
  do items.push(expandItem(p));
  while (p.lx.eat(','));
  return items;
}

function expandItem(p: ExprParser): ExpandItem {
  const lx = p.lx;
  const start = lx.pos;
  lx.node(start);
  if (lx.wordAt('$value', start, true)) {
    lx.pos += 6;
    return { path: [], star: false, ref: false, count: false, value: true, options: {}, span: lx.span(start) };
  }
  const path: MemberSegment[] = [];
  for (;;) {
    const at = lx.pos;
    if (lx.eat('*')) return star(p, start, path);
    if (lx.char() === '@') {
      path.push(annotationSegment(lx));
    } else {
      const end = lx.dottedNameEnd();
      if (end < 0) throw lx.expected('a navigation property, *, $value or a type cast', at);
      const name = lx.text.slice(at, end);
      lx.pos = end;
      path.push(name.includes('.') ? { kind: 'cast', typeName: name, span: lx.span(at) } : { kind: 'name', name, span: lx.span(at) });
    }
    lx.node(at);
    if (lx.startsWith('/$ref')) return suffixed(p, start, path, 'ref');
    if (lx.startsWith('/$count')) return suffixed(p, start, path, 'count');
    if (!lx.eat('/')) break;
  }
  const options = lx.char() === '(' ? parseNestedOptions(p, NESTED_OPTIONS.expand, describe(path)) : {};
  return { path, star: false, ref: false, count: false, options, span: lx.span(start) };
}

/** `*`, `*` + `/$ref`, or `*($levels=...)`. */
function star(p: ExprParser, start: number, path: MemberSegment[]): ExpandItem {
  const lx = p.lx;
  let ref = false;
  let options: NestedQueryOptions = {};
  if (lx.startsWith('/$ref')) {
    lx.pos += 5;
    ref = true;
  } else if (lx.char() === '(') {
    options = parseNestedOptions(p, NESTED_OPTIONS.star, '*');
  }
  return { path, star: true, ref, count: false, options, span: lx.span(start) };
}

/** `nav/$ref[(refOptions)]` or `nav/$count[(countOptions)]`. */
function suffixed(p: ExprParser, start: number, path: MemberSegment[], suffix: 'ref' | 'count'): ExpandItem {
  const lx = p.lx;
  lx.pos += suffix === 'ref' ? 5 : 7;
  const allowed = suffix === 'ref' ? NESTED_OPTIONS.ref : NESTED_OPTIONS.count;
  const options = lx.char() === '(' ? parseNestedOptions(p, allowed, `${describe(path)}/$${suffix}`) : {};
  return { path, star: false, ref: suffix === 'ref', count: suffix === 'count', options, span: lx.span(start) };
}

function describe(path: readonly MemberSegment[]): string {
  return path.map((s) => (s.kind === 'name' ? s.name : s.kind === 'cast' ? s.typeName : s.kind === 'annotation' ? `@${s.term}` : '')).join('/');
}
