/**
 * The `Prefer` request header (OData Protocol 4.01 §8.2.8, ABNF §8 `prefer`/`preference`, RFC 7240):
 * `odata.maxpagesize=50`, `return=minimal`, `odata.include-annotations="*"`, and the rest. RFC 7240
 * §2 says a server ignores preferences it does not understand, so the header parser never throws:
 * malformed preferences are returned in `invalid` for the caller to log or reject.
 */
import { UriSyntaxError } from '../errors/odata-error.js';
import { isDigit, Lexer } from './lexer.js';
import { DEFAULT_PARSE_LIMITS, ParseBudget } from './parse-limits.js';

/** The preferences OData defines, plus any others by lower-case name with their raw value. */
export interface Preferences {
  readonly allowEntityReferences?: boolean;
  readonly callback?: string;
  readonly continueOnError?: boolean;
  readonly includeAnnotations?: readonly string[];
  readonly maxPageSize?: number;
  readonly omitValues?: 'nulls' | 'defaults';
  readonly respondAsync?: boolean;
  readonly return?: 'minimal' | 'representation';
  readonly trackChanges?: boolean;
  readonly wait?: number;
  readonly other: ReadonlyMap<string, string>;
}

/** A preference that does not follow its grammar, with where and why. */
export interface InvalidPreference {
  readonly text: string;
  readonly position: number;
  readonly message: string;
}

type Draft = { -readonly [K in keyof Preferences]?: Preferences[K] };

/** Preferences that may carry the `odata.` prefix (ABNF `[ "odata." ]`). */
const ODATA_PREFIXED = new Set(['allow-entityreferences', 'callback', 'continue-on-error', 'include-annotations', 'maxpagesize', 'track-changes']);
const TOKEN = /[A-Za-z0-9!#$%&'*+\-.^_`|~]/;

/** Parses a `Prefer` header value (without `Prefer:`); never throws. */
export function parsePrefer(headerValue: string): { readonly preferences: Preferences; readonly invalid: readonly InvalidPreference[] } {
  const draft: Draft = {};
  const other = new Map<string, string>();
  const invalid: InvalidPreference[] = [];
  for (const [start, end] of splitPreferences(headerValue)) {
    const lx = new Lexer(headerValue, 'Prefer', new ParseBudget(DEFAULT_PARSE_LIMITS), start, end);
    try {
      readPreference(lx, draft, other);
    } catch (e) {
      if (!(e instanceof UriSyntaxError)) throw e;
      invalid.push({ text: headerValue.slice(start, end), position: e.position, message: e.message });
    }
  }
  return { preferences: { ...draft, other }, invalid };
}

/** Parses one preference (ABNF `preference`), throwing a UriSyntaxError (option `Prefer`) if malformed. */
export function parsePreference(text: string): Preferences {
  const draft: Draft = {};
  const other = new Map<string, string>();
  readPreference(new Lexer(text, 'Prefer', new ParseBudget(DEFAULT_PARSE_LIMITS)), draft, other);
  return { ...draft, other };
}

/** Offsets of the comma-separated preferences, ignoring commas inside double quotes; OWS trimmed. */
function splitPreferences(text: string): [number, number][] {
  const parts: [number, number][] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i <= text.length; i++) {
    const ch = text[i];
    if (ch === '\\' && quoted) i++;
    else if (ch === '"') quoted = !quoted;
    else if ((ch === ',' && !quoted) || ch === undefined) {
      let s = start;
      let e = i;
      while (s < e && (text[s] === ' ' || text[s] === '\t')) s++;
      while (e > s && (text[e - 1] === ' ' || text[e - 1] === '\t')) e--;
      if (e > s) parts.push([s, e]);
      start = i + 1;
    }
  }
  return parts;
}

function readPreference(lx: Lexer, draft: Draft, other: Map<string, string>): void {
  const start = lx.pos;
  while (TOKEN.test(lx.char())) lx.pos++;
  if (lx.pos === start) throw lx.expected('a preference name');
  const written = lx.text.slice(start, lx.pos).toLowerCase();
  const base = written.startsWith('odata.') && ODATA_PREFIXED.has(written.slice(6)) ? written.slice(6) : written;
  switch (base) {
    case 'allow-entityreferences':
    case 'respond-async':
    case 'track-changes':
      draft[base === 'allow-entityreferences' ? 'allowEntityReferences' : base === 'respond-async' ? 'respondAsync' : 'trackChanges'] = true;
      break;
    case 'callback': {
      lx.bws();
      lx.expect(';', "';url=\"...\"' after callback");
      lx.bws();
      if (!lx.wordAt('url')) throw lx.expected('url="..."');
      lx.pos += 3;
      const url = quoted(lx);
      if (!/^[A-Za-z][A-Za-z0-9+\-.]*:[^\s"]+$/.test(url)) throw lx.error('the callback url must be an absolute URI', lx.pos - url.length - 1);
      draft.callback = url;
      break;
    }
    case 'continue-on-error':
      if (equals(lx, true)) draft.continueOnError = word(lx, ['true', 'false']) === 'true';
      else draft.continueOnError = true;
      break;
    case 'include-annotations':
      equals(lx);
      draft.includeAnnotations = annotations(lx);
      break;
    case 'maxpagesize':
      equals(lx);
      if (lx.char() < '1' || lx.char() > '9') throw lx.expected('a positive whole number without leading zeros');
      draft.maxPageSize = digits(lx);
      break;
    case 'omit-values':
      equals(lx);
      draft.omitValues = word(lx, ['nulls', 'defaults']) as 'nulls' | 'defaults';
      break;
    case 'return':
      equals(lx);
      // %s"representation" / %s"minimal": case-sensitive values.
      if (lx.wordAt('representation', lx.pos, true)) draft.return = 'representation';
      else if (lx.wordAt('minimal', lx.pos, true)) draft.return = 'minimal';
      else throw lx.expected('minimal or representation');
      lx.pos += draft.return.length;
      break;
    case 'wait':
      equals(lx);
      draft.wait = digits(lx);
      break;
    default:
      // RFC 7240: token [ "=" ( token / quoted-string ) ] *( OWS ";" [ OWS parameter ] ), kept as text.
      lx.bws();
      other.set(written, lx.eat('=') ? lx.text.slice(lx.pos, lx.end).trim() : '');
      lx.pos = lx.end;
  }
  if (!lx.atEnd) throw lx.expected('the end of the preference');
}

/** ABNF `EQ-h = BWS-h "=" BWS-h`; with `optional`, returns false when there is no `=`. */
function equals(lx: Lexer, optional = false): boolean {
  const save = lx.pos;
  lx.bws();
  if (lx.char() !== '=') {
    lx.pos = save;
    if (optional) return false;
    throw lx.expected("'='");
  }
  lx.pos++;
  lx.bws();
  return true;
}

function word(lx: Lexer, words: readonly string[]): string {
  const found = words.find((w) => lx.wordAt(w));
  if (found === undefined) throw lx.expected(words.join(' or '));
  lx.pos += found.length;
  return found;
}

function digits(lx: Lexer): number {
  const start = lx.pos;
  while (isDigit(lx.code())) lx.pos++;
  if (lx.pos === start) throw lx.expected('a whole number');
  return Number(lx.text.slice(start, lx.pos));
}

function quoted(lx: Lexer): string {
  equals(lx);
  lx.expect('"');
  const start = lx.pos;
  while (!lx.atEnd && lx.char() !== '"') lx.pos++;
  const value = lx.text.slice(start, lx.pos);
  lx.expect('"', 'a closing double quote');
  return value;
}

/** ABNF `annotationsList`: `"[-]( * / NS.* / NS.Term )[#qualifier],..."`. */
function annotations(lx: Lexer): string[] {
  lx.expect('"');
  const list: string[] = [];
  for (;;) {
    const start = lx.pos;
    lx.eat('-');
    if (!lx.eat('*')) {
      const end = lx.dottedNameEnd();
      if (end < 0) throw lx.expected('*, Namespace.* or Namespace.Term');
      lx.pos = end;
      if (!lx.text.slice(start, end).includes('.') && !lx.startsWith('.*')) throw lx.expected("'.' and a term name or * after the namespace");
      if (lx.startsWith('.')) {
        lx.pos++;
        lx.expect('*', 'a term name or * after the namespace');
      }
    }
    if (lx.eat('#')) lx.expectIdentifier('a qualifier after #');
    list.push(lx.text.slice(start, lx.pos));
    if (lx.eat('"')) return list;
    lx.expect(',', "',' or a closing double quote");
  }
}
