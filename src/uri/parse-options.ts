/**
 * The query string (ABNF §2 `queryOptions`, URL Conventions 4.01 §2.1 and §5): split the undecoded
 * string at `&`, split each option at the first `=`, percent-decode name and value once, then parse
 * the value by the option's grammar. System options are case-insensitive with an optional `$`, may
 * appear once, and unknown `$`-names are errors; `@name` defines a parameter alias; anything else
 * is a custom option and kept as text.
 */
import type { ExpandItem, Expr, OrderByItem, QueryOptions, SelectItem } from './ast.js';
import { NotImplementedError, UriSyntaxError } from '../errors/odata-error.js';
import { Lexer } from './lexer.js';
import { checkUrlLength, DEFAULT_PARSE_LIMITS, ParseBudget, type ParseLimits } from './parse-limits.js';
import { percentDecode } from './percent-decode.js';
import { ExprParser, expectEndOfExpression, parseExpression } from './parse-expression.js';
import { readOptionValue, systemOptionName, type OptionDraft, type SystemOption } from './parse-option-value.js';

/** Re-exported so every per-option entry point is importable from here: a whole text as one common expression. */
export { parseExpression };

/** Parses a raw (still percent-encoded) query string, without the leading `?`. */
export function parseQueryOptions(rawQuery: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): QueryOptions {
  checkUrlLength(rawQuery, limits, 'query');
  const hash = rawQuery.indexOf('#');
  if (hash >= 0) {
    throw new UriSyntaxError(
      `Syntax error at position ${hash} in the query: '#' starts a fragment and must be percent-encoded as %23 inside a query option.`,
      'query',
      hash,
    );
  }
  const state = new QueryState(new ParseBudget(limits));
  let offset = 0;
  for (const piece of rawQuery.split('&')) {
    // An empty piece (`a=1&&b=2`, a trailing `&`) carries no option; tolerating it costs nothing.
    if (piece !== '') state.read(piece, offset);
    offset += piece.length + 1;
  }
  return state.result();
}

/** Parses exactly one raw query option such as `$filter=Price%20gt%205` (a raw `&` is an error). */
export function parseQueryOption(rawOption: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): QueryOptions {
  checkUrlLength(rawOption, limits, 'query');
  const amp = rawOption.indexOf('&');
  if (amp >= 0) {
    throw new UriSyntaxError(
      `Syntax error at position ${amp} in the query option: '&' separates query options and must be written %26 inside a value.`,
      'query',
      amp,
    );
  }
  return parseQueryOptions(rawOption, limits);
}

/** Parses a decoded `$filter` value (ABNF `boolCommonExpr`). */
export function parseFilter(text: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): Expr {
  return parseExpression(text, '$filter', limits);
}

/** Parses a decoded `$orderby` value. */
export function parseOrderBy(text: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): readonly OrderByItem[] {
  return parseSingle('orderby', text, limits).orderby ?? [];
}

/** Parses a decoded `$select` value. */
export function parseSelect(text: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): readonly SelectItem[] {
  return parseSingle('select', text, limits).select ?? [];
}

/** Parses a decoded `$expand` value, nested options included. */
export function parseExpand(text: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): readonly ExpandItem[] {
  return parseSingle('expand', text, limits).expand ?? [];
}

function parseSingle(option: SystemOption, text: string, limits: ParseLimits): OptionDraft {
  checkUrlLength(text, limits, `$${option}`);
  const draft: OptionDraft = {};
  readWhole(option, new Lexer(text, `$${option}`, new ParseBudget(limits)), draft);
  return draft;
}

/** Reads a whole top-level option value and insists nothing is left over. */
function readWhole(option: SystemOption, lx: Lexer, into: OptionDraft): void {
  readOptionValue(option, new ExprParser(lx), into);
  if (lx.atEnd) return;
  if (option === 'filter' || option === 'orderby' || option === 'compute') expectEndOfExpression(lx);
  if (option === 'search' && lx.char() === ';') {
    throw lx.error('\';\' is not allowed in a search word; put the text in double quotes, as in "a;b"');
  }
  if (option === 'apply') throw lx.expected("'/' and the next transformation, or the end of $apply");
  throw lx.expected(option === 'select' || option === 'expand' ? "',' or the end of the option" : 'the end of the option');
}

/** The options collected so far, with the checks that span options (duplicates). */
class QueryState {
  private readonly draft: OptionDraft = {};
  private readonly seen = new Set<SystemOption>();
  private readonly aliases = new Map<string, Expr>();
  private readonly custom = new Map<string, string>();

  constructor(private readonly budget: ParseBudget) {}

  read(piece: string, offset: number): void {
    const eq = piece.indexOf('=');
    const name = percentDecode(eq < 0 ? piece : piece.slice(0, eq), 'query', offset);
    const rawValue = eq < 0 ? undefined : piece.slice(eq + 1);
    if (name.startsWith('@')) return this.alias(name, rawValue, offset);
    const option = systemOptionName(name);
    if (option === undefined) {
      if (name.startsWith('$')) throw optionError(`unknown system query option '${name}'`, name, offset);
      this.custom.set(name, rawValue === undefined ? '' : percentDecode(rawValue, name, offset + eq + 1));
      return;
    }
    const label = `$${option}`;
    // Conventions §8: nothing is silently ignored; an option the service does not implement is a 501.
    if (option === 'levels') throw new NotImplementedError('The system query option $levels is not supported: this service has no recursive hierarchies.');
    // URL Conventions 4.01 §5.1: the same system query option MUST NOT be specified more than once.
    if (this.seen.has(option)) throw optionError(`${label} is specified more than once`, label, offset);
    this.seen.add(option);
    if (rawValue === undefined) throw optionError(`${name} needs '=' and a value`, label, offset + name.length);
    const lx = new Lexer(percentDecode(rawValue, label, 0), label, this.budget);
    readWhole(option, lx, this.draft);
  }

  private alias(name: string, rawValue: string | undefined, offset: number): void {
    const lx = new Lexer(name, 'query', this.budget, 1);
    const alias = lx.identifier();
    if (alias === undefined || !lx.atEnd) throw optionError(`'${name}' is not a valid parameter alias name`, 'query', offset);
    if (rawValue === undefined) throw optionError(`the parameter alias ${name} needs '=' and a value`, name, offset + name.length);
    if (this.aliases.has(alias)) throw optionError(`the parameter alias ${name} is defined more than once`, name, offset);
    const value = new Lexer(percentDecode(rawValue, name, 0), name, this.budget);
    this.aliases.set(alias, new ExprParser(value).expression());
    expectEndOfExpression(value);
  }

  result(): QueryOptions {
    return { ...this.draft, aliases: this.aliases, custom: this.custom };
  }
}

function optionError(detail: string, option: string, position: number): UriSyntaxError {
  const where = option === 'query' ? 'the query' : option;
  return new UriSyntaxError(`Syntax error at position ${position} in ${where}: ${detail}.`, option, position);
}
