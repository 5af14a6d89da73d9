/**
 * The values of system query options (ABNF §2 `systemQueryOption`, URL Conventions 4.01 §5.1), read
 * from a lexer so the same code serves a top-level `$filter=...` and a nested `$expand=X($filter=...)`.
 * Option names are case-insensitive and the `$` is optional (4.01 §5.1), except for `$skiptoken` and
 * `$deltatoken`, whose ABNF rules require it.
 */
import type { QueryOptions } from './ast.js';
import { isDigit, type Lexer } from './lexer.js';
import type { ExprParser } from './parse-expression.js';
import { parseOrderByItems } from './parse-orderby.js';
import { parseSelectItems } from './parse-select.js';
import { parseExpandItems } from './parse-expand.js';
import { parseComputeItems } from './parse-compute.js';
import { parseSearchExpression } from './parse-search.js';
import { parseApplyExpr } from './parse-apply.js';

/** A system query option, by its name without `$`. */
export type SystemOption =
  | 'filter'
  | 'orderby'
  | 'select'
  | 'expand'
  | 'top'
  | 'skip'
  | 'count'
  | 'levels'
  | 'search'
  | 'compute'
  | 'format'
  | 'skiptoken'
  | 'deltatoken'
  | 'apply'
  | 'index'
  | 'schemaversion'
  | 'id';

const DOLLAR_ONLY: ReadonlySet<SystemOption> = new Set(['skiptoken', 'deltatoken']);
const ALL: ReadonlySet<string> = new Set<SystemOption>([
  'filter', 'orderby', 'select', 'expand', 'top', 'skip', 'count', 'levels', 'search', 'compute', 'format',
  'skiptoken', 'deltatoken', 'apply', 'index', 'schemaversion', 'id',
]);

/** The system option a written name denotes (`$filter`, `$FILTER`, `filter`), or undefined for a custom name. */
export function systemOptionName(written: string): SystemOption | undefined {
  const dollar = written.startsWith('$');
  const name = (dollar ? written.slice(1) : written).toLowerCase();
  if (!ALL.has(name)) return undefined;
  const option = name as SystemOption;
  return dollar || !DOLLAR_ONLY.has(option) ? option : undefined;
}

/** Mutable view of the options being collected. */
export type OptionDraft = { -readonly [K in keyof QueryOptions]?: QueryOptions[K] };

/**
 * Reads the value of `option` at the cursor into `into`. The value ends where its grammar ends; the
 * caller checks what follows (the end of a top-level option, or `;`/`)` in nested options).
 */
export function readOptionValue(option: SystemOption, p: ExprParser, into: OptionDraft): void {
  const lx = p.lx;
  switch (option) {
    case 'filter':
      into.filter = p.expression();
      return;
    case 'orderby':
      into.orderby = parseOrderByItems(p);
      return;
    case 'select':
      into.select = parseSelectItems(p);
      return;
    case 'expand':
      into.expand = parseExpandItems(p);
      return;
    case 'top':
    case 'skip':
      into[option] = nonNegativeInteger(lx, `$${option}`);
      return;
    case 'index': {
      const negative = lx.eat('-');
      const n = nonNegativeInteger(lx, '$index');
      into.index = negative ? -n : n;
      return;
    }
    case 'count':
      if (lx.wordAt('true')) into.count = true;
      else if (lx.wordAt('false')) into.count = false;
      else throw lx.expected('true or false');
      lx.pos += into.count ? 4 : 5;
      return;
    case 'levels':
      if (lx.wordAt('max')) {
        lx.pos += 3;
        into.levels = 'max';
        return;
      }
      if (lx.char() === '0') throw lx.error('$levels is a positive number without leading zeros, or max');
      into.levels = nonNegativeInteger(lx, '$levels');
      return;
    case 'search':
      into.search = parseSearchExpression(lx);
      return;
    case 'compute':
      into.compute = parseComputeItems(p);
      return;
    case 'format':
      into.format = rest(lx, /^(atom|json|xml|[^/\s]+\/[^/\s]+)$/i, 'json, xml, atom or a media type such as application/json');
      return;
    case 'schemaversion':
      into.schemaversion = rest(lx, /^(\*|[A-Za-z0-9\-._~]+)$/, '* or a version made of letters, digits and - . _ ~');
      return;
    case 'apply':
      into.apply = parseApplyExpr(p);
      return;
    case 'skiptoken':
    case 'deltatoken':
    case 'id':
      into[option] = rest(lx, /^[^\s]/, 'a value');
      return;
  }
}

/** ABNF `1*DIGIT` as a safe integer. */
function nonNegativeInteger(lx: Lexer, name: string): number {
  const start = lx.pos;
  while (isDigit(lx.code())) lx.pos++;
  if (lx.pos === start) throw lx.expected(`a non-negative whole number for ${name}`);
  const n = Number(lx.text.slice(start, lx.pos));
  if (!Number.isSafeInteger(n)) throw lx.error(`${name} is too large`, start);
  return n;
}

/** The rest of a top-level option value, checked against `shape`. */
function rest(lx: Lexer, shape: RegExp, what: string): string {
  const text = lx.text.slice(lx.pos, lx.end);
  if (!shape.test(text)) throw lx.expected(what);
  lx.pos = lx.end;
  return text;
}
