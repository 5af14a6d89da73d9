/**
 * The order rules of ABNF `resourcePath`/`odataRelativeUri` that hold whatever the model says:
 * `$metadata` and `$batch` stand alone, `$entity`/`$all`/`$crossjoin` and entity sets come first,
 * `$count`, `$ref`, `$value` and `$query` end the path, `$entity` and `$all` take at most a type cast.
 */
import type { PathSegment } from './ast.js';
import type { Lexer } from './lexer.js';

const ONLY_FIRST = new Set<PathSegment['kind']>(['metadata', 'batch', 'entity', 'all', 'crossjoin']);
const LAST = new Set<PathSegment['kind']>(['count', 'ref', 'value', 'query']);

/** Throws a syntax error at the first segment that is out of place. */
export function checkSegmentOrder(segments: readonly PathSegment[], lx: Lexer): void {
  const first = segments[0];
  if (first === undefined) return;
  if (first.kind === 'qualified') {
    throw lx.error(`a resource path starts with an entity set, singleton or function import, not the qualified name '${first.name}'`, first.span.start);
  }
  if (first.kind !== 'identifier' && !ONLY_FIRST.has(first.kind)) {
    throw lx.error(`a resource path cannot start with ${label(first)}`, first.span.start);
  }
  for (let i = 1; i < segments.length; i++) {
    const seg = segments[i] as PathSegment;
    const prev = segments[i - 1] as PathSegment;
    if (ONLY_FIRST.has(seg.kind)) throw lx.error(`${label(seg)} is only allowed as the first segment`, seg.span.start);
    if (LAST.has(prev.kind)) throw lx.error(`nothing may follow ${label(prev)}`, seg.span.start);
    if (prev.kind === 'metadata' || prev.kind === 'batch') throw lx.error(`nothing may follow ${label(prev)}`, seg.span.start);
    if ((prev.kind === 'entity' || prev.kind === 'all' || prev.kind === 'crossjoin') && !(i === 1 && isTypeCast(seg, prev))) {
      throw lx.error(`${label(prev)} may only be followed by ${prev.kind === 'crossjoin' ? '/$query' : 'a qualified type name'}`, seg.span.start);
    }
  }
}

function isTypeCast(seg: PathSegment, prev: PathSegment): boolean {
  if (prev.kind === 'crossjoin') return seg.kind === 'query';
  return seg.kind === 'qualified' && seg.key === undefined && seg.params === undefined;
}

function label(seg: PathSegment): string {
  switch (seg.kind) {
    case 'identifier':
    case 'qualified':
      return `'${seg.name}'`;
    case 'literalSegment':
      return `'${seg.text}'`;
    case 'crossjoin':
      return '$crossjoin(...)';
    case 'filter':
      return '$filter(...)';
    default:
      return `$${seg.kind}`;
  }
}
