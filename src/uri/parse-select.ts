/**
 * `$select` items (ABNF `selectItem`, URL Conventions 4.01 §5.1.3): `*`, `Namespace.*`, property paths
 * through complex properties and type casts, annotations, actions and functions (optionally with a
 * parameter-name signature `f(a,b)`), and nested options for collection-valued properties.
 */
import type { MemberSegment, NestedQueryOptions, SelectItem } from './ast.js';
import type { Lexer } from './lexer.js';
import type { ExprParser } from './parse-expression.js';
import { annotationSegment } from './parse-member-path.js';
import { NESTED_OPTIONS, parseNestedOptions } from './parse-nested-options.js';

/** Reads `item *( "," item )` at the cursor. */
export function parseSelectItems(p: ExprParser): SelectItem[] {
  const items: SelectItem[] = [];
  do items.push(selectItem(p));
  while (p.lx.eat(','));
  return items;
}

function selectItem(p: ExprParser): SelectItem {
  const lx = p.lx;
  const start = lx.pos;
  lx.node(start);
  if (lx.eat('*')) return { kind: 'star', span: lx.span(start) };
  const segments: MemberSegment[] = [];
  for (;;) {
    const at = lx.pos;
    if (lx.char() === '@') {
      segments.push(annotationSegment(lx));
    } else {
      const end = lx.dottedNameEnd();
      if (end < 0) throw lx.expected('a property name, * or Namespace.*', at);
      const name = lx.text.slice(at, end);
      lx.pos = end;
      if (segments.length === 0 && lx.startsWith('.*')) {
        lx.pos += 2;
        return { kind: 'qualifiedStar', namespace: name, span: lx.span(start) };
      }
      segments.push(name.includes('.') ? { kind: 'cast', typeName: name, span: lx.span(at) } : { kind: 'name', name, span: lx.span(at) });
    }
    lx.node(at);
    if (!lx.eat('/')) break;
  }
  const last = segments[segments.length - 1];
  if (lx.char() === '(') {
    const names = parameterNames(lx);
    if (names !== undefined) return operation(segments, names, start, lx);
    const options: NestedQueryOptions = parseNestedOptions(p, NESTED_OPTIONS.select, describe(segments));
    return { kind: 'path', segments, options, span: lx.span(start) };
  }
  if (segments.length === 1 && last?.kind === 'cast') return operation(segments, undefined, start, lx);
  return { kind: 'path', segments, span: lx.span(start) };
}

/** `f(a,b)`: the signature of an overloaded function (ABNF `parameterNames`); undefined if these are options. */
function parameterNames(lx: Lexer): string[] | undefined {
  const first = lx.identifierEnd(lx.pos + 1);
  const after = lx.charAt(first);
  if (first < 0 || (after !== ',' && after !== ')')) return undefined;
  lx.pos++;
  const names: string[] = [];
  do names.push(lx.expectIdentifier('a parameter name'));
  while (lx.eat(','));
  lx.expect(')', "',' or ')' in the parameter list");
  return names;
}

/** An action or function, qualified (`Model.ActionName`) or with a signature (`MostPopularName(Location)`). */
function operation(segments: readonly MemberSegment[], names: readonly string[] | undefined, start: number, lx: Lexer): SelectItem {
  const qualifiedName = describe(segments);
  return {
    kind: 'operation',
    qualifiedName,
    ...(names === undefined ? {} : { parameterNames: names }),
    span: lx.span(start),
  };
}

function describe(path: readonly MemberSegment[]): string {
  return path.map((s) => (s.kind === 'name' ? s.name : s.kind === 'cast' ? s.typeName : s.kind === 'annotation' ? `@${s.term}` : '')).join('/');
}
