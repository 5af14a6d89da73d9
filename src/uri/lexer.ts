/**
 * The character cursor every URL parser reads through. OData's grammar is context-sensitive (a space
 * is an operator separator in `$filter`, part of a word in `$search`, an error inside a key), so the
 * parsers pull exactly the lexical item they expect next instead of consuming a fixed token stream.
 * Positions are offsets in the decoded text of one option (or of the whole decoded path).
 */
import { UriSyntaxError } from '../errors/odata-error.js';
import type { ParseBudget } from './parse-limits.js';
import type { Span } from './ast.js';

const ASCII_IDENT_START = /[A-Za-z_]/;
// ABNF §6 note: identifiers may also use Unicode letters (L, Nl) and, after the first, Nd, Mn, Mc, Pc, Cf.
const UNICODE_IDENT_START = /[\p{L}\p{Nl}_]/u;
const UNICODE_IDENT_PART = /[\p{L}\p{Nl}\p{Nd}\p{Mn}\p{Mc}\p{Pc}\p{Cf}]/u;
/** Appended to syntax errors at a `+`. */
const PLUS_HINT = "; a '+' in a URL is a plus sign, not a space: send %20 for a space and %2B for a plus";
/** ABNF `odataIdentifier`: a leading character and at most 127 more. */
const MAX_IDENTIFIER_LENGTH = 128;

/** True for SP and HTAB, the only characters of ABNF `RWS`/`BWS` once `%20`/`%09` are decoded. */
export function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/** True for ASCII digits. */
export function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** True if the character can start an `odataIdentifier` (ABNF §6). */
export function isIdentifierStart(ch: string): boolean {
  if (ch === '') return false;
  return ch.charCodeAt(0) < 0x80 ? ASCII_IDENT_START.test(ch) : UNICODE_IDENT_START.test(ch);
}

/** True if the character can continue an `odataIdentifier` (ABNF §6). */
export function isIdentifierPart(ch: string): boolean {
  if (ch === '') return false;
  const c = ch.charCodeAt(0);
  if (c < 0x80) return isDigit(c) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
  return UNICODE_IDENT_PART.test(ch);
}

/** A cursor over a region `[start, end)` of a decoded text, with error reporting and the parse budget. */
export class Lexer {
  pos: number;
  // The last whitespace run measured: operator lookahead asks for the same run once per precedence
  // level on the way out of nested expressions, and this keeps that from re-scanning long runs.
  private wsFrom = -1;
  private wsLength = 0;

  constructor(
    readonly text: string,
    readonly option: string,
    readonly budget: ParseBudget,
    start = 0,
    readonly end = text.length,
  ) {
    this.pos = start;
  }

  /** True when the cursor reached the end of its region. */
  get atEnd(): boolean {
    return this.pos >= this.end;
  }

  /** The character `k` places ahead, or '' past the end of the region. */
  char(k = 0): string {
    const i = this.pos + k;
    return i < this.end ? (this.text[i] ?? '') : '';
  }

  /** The UTF-16 code `k` places ahead, or -1 past the end of the region. */
  code(k = 0): number {
    const i = this.pos + k;
    return i < this.end ? this.text.charCodeAt(i) : -1;
  }

  /** True if the text at the cursor starts with `s` (case-sensitive, like ABNF `%s"..."`). */
  startsWith(s: string, at = this.pos): boolean {
    return at + s.length <= this.end && this.text.startsWith(s, at);
  }

  /** True if the text at `at` starts with `s`, ignoring ASCII case (plain ABNF strings are case-insensitive). */
  startsWithCi(s: string, at = this.pos): boolean {
    return at + s.length <= this.end && this.text.slice(at, at + s.length).toLowerCase() === s.toLowerCase();
  }

  /** True if `word` (case-insensitive) is at `at` and not followed by an identifier character. */
  wordAt(word: string, at = this.pos, caseSensitive = false): boolean {
    const ok = caseSensitive ? this.startsWith(word, at) : this.startsWithCi(word, at);
    return ok && !isIdentifierPart(this.charAt(at + word.length));
  }

  /** The character at absolute offset `at` inside the region, or ''. */
  charAt(at: number): string {
    return at < this.end && at >= 0 ? (this.text[at] ?? '') : '';
  }

  /** Consumes `s` if it is next (case-sensitive). */
  eat(s: string): boolean {
    if (!this.startsWith(s)) return false;
    this.pos += s.length;
    return true;
  }

  /** Consumes `s` or fails with "expected 's'". */
  expect(s: string, what = `'${s}'`): void {
    if (!this.eat(s)) throw this.expected(what);
  }

  /** Number of SP/HTAB characters starting at `at`. */
  whitespaceAt(at = this.pos): number {
    if (at === this.wsFrom) return this.wsLength;
    let i = at;
    while (i < this.end && isWhitespace(this.text.charCodeAt(i))) i++;
    this.wsFrom = at;
    this.wsLength = i - at;
    return this.wsLength;
  }

  /** Consumes required whitespace (ABNF `RWS`); false, consuming nothing, when there is none. */
  rws(): boolean {
    const n = this.whitespaceAt();
    this.pos += n;
    return n > 0;
  }

  /** Consumes optional whitespace (ABNF `BWS`). */
  bws(): void {
    this.pos += this.whitespaceAt();
  }

  /** End offset of the `odataIdentifier` at `at`, or -1 if none starts there. */
  identifierEnd(at = this.pos): number {
    if (!isIdentifierStart(this.charAt(at))) return -1;
    let i = at + 1;
    while (isIdentifierPart(this.charAt(i))) i++;
    if (i - at > MAX_IDENTIFIER_LENGTH) {
      throw this.error(`a name may have at most ${MAX_IDENTIFIER_LENGTH} characters`, at + MAX_IDENTIFIER_LENGTH);
    }
    return i;
  }

  /** Consumes an `odataIdentifier`, or returns undefined without moving. */
  identifier(): string | undefined {
    const end = this.identifierEnd();
    if (end < 0) return undefined;
    const name = this.text.slice(this.pos, end);
    this.pos = end;
    return name;
  }

  /** Consumes an `odataIdentifier` or fails with "expected <what>". */
  expectIdentifier(what = 'a name'): string {
    const name = this.identifier();
    if (name === undefined) throw this.expected(what);
    return name;
  }

  /**
   * End offset of a dotted name `a.b.c` at `at` (ABNF `namespace "." name`), or -1. A dot not
   * followed by an identifier ends the name before the dot, so `Model.*` yields `Model`.
   */
  dottedNameEnd(at = this.pos): number {
    let end = this.identifierEnd(at);
    if (end < 0) return -1;
    while (this.charAt(end) === '.') {
      const next = this.identifierEnd(end + 1);
      if (next < 0) break;
      end = next;
    }
    return end;
  }

  /** A span from `start` to the cursor. */
  span(start: number): Span {
    return { start, end: this.pos };
  }

  /** Counts a syntax node at `at` against the budget. */
  node(at = this.pos): void {
    this.budget.node(this.option, at);
  }

  /** Enters one nesting level (before recursing). */
  enter(at = this.pos): void {
    this.budget.enter(this.option, at);
  }

  /** Leaves a nesting level. */
  leave(): void {
    this.budget.leave();
  }

  /**
   * A syntax error at `at`: "Syntax error at position N in $filter: <detail>." When a `+` is where the
   * parse broke (or just before it), the message says how to encode: clients that build URLs like HTML
   * forms send `+` for a space, which URLs do not decode (a `+` of a time-zone offset never gets here).
   */
  error(detail: string, at = this.pos): UriSyntaxError {
    const where = this.option === 'path' ? 'the resource path' : this.option;
    const plus = this.charAt(at) === '+' || this.charAt(at - 1) === '+' ? PLUS_HINT : '';
    return new UriSyntaxError(`Syntax error at position ${at} in ${where}: ${detail}${plus}.`, this.option, at);
  }

  /** "expected <what> but found <what is there>". */
  expected(what: string, at = this.pos): UriSyntaxError {
    return this.error(`expected ${what} but found ${this.found(at)}`, at);
  }

  /** Describes the input at `at` for a message: the word there, a single character, or the end. */
  found(at = this.pos): string {
    if (at >= this.end) return this.option === 'path' ? 'the end of the segment' : 'the end of the input';
    const ch = this.charAt(at);
    if (ch === ' ') return 'a space';
    if (ch === '\t') return 'a tab';
    let i = at;
    while (i < this.end && i - at < 30 && (isIdentifierPart(this.charAt(i)) || '$@.'.includes(this.charAt(i)))) i++;
    return `'${i > at ? this.text.slice(at, i) : ch}'`;
  }
}
