/**
 * matchesPattern()'s pattern is an ECMAScript regular expression (URL Conventions §5.1.1.7.1); SQLite
 * runs it as one (db/sqlite/sqlite-functions.ts, `u` flag). PostgreSQL's `~` speaks its own dialect (ARE),
 * where the same text can mean something else: `.` also matches a line break, `\b` is a backspace and
 * `\y` a word boundary, `\d` and `\w` follow the locale, `[[:alpha:]]` is a class. This translates a
 * valid pattern into an ARE with the same meaning; a construct ARE has no faithful form for (Unicode
 * properties, named groups, empty classes) is a 501 naming it, rather than a different answer.
 *
 * Whether a match exists does not depend on greediness, so lazy quantifiers translate as they are.
 */
import { NotImplementedError } from '../../errors/odata-error.js';

const WORD = 'A-Za-z0-9_';
const DIGIT = '0-9';
/** ECMAScript's \s: WhiteSpace and LineTerminator. */
const SPACE = '\\t\\n\\u000b\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/** `.` without the `s` flag: anything but a line terminator. */
const DOT = '[^\\n\\r\\u2028\\u2029]';
const IS_WORD = `[${WORD}]`;
const BOUNDARY = `(?:(?<=${IS_WORD})(?!${IS_WORD})|(?<!${IS_WORD})(?=${IS_WORD}))`;
const NOT_BOUNDARY = `(?:(?<=${IS_WORD})(?=${IS_WORD})|(?<!${IS_WORD})(?!${IS_WORD}))`;
/** Class escapes: their members, as the inside of a bracket expression. */
const CLASS_MEMBERS: Readonly<Record<string, string>> = { d: DIGIT, w: WORD, s: SPACE };
/** Control escapes with the same meaning in both dialects. */
const CONTROL = new Set(['n', 'r', 't', 'f', 'v']);

const unsupported = (what: string): NotImplementedError =>
  new NotImplementedError(`matchesPattern() on PostgreSQL cannot run ${what} with ECMAScript's meaning; the pattern is refused rather than answered differently.`);

/** A code point as an ARE escape (`\uXXXX` or `\UXXXXXXXX`): literal whatever it is. */
function codePoint(cp: number): string {
  return cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\U${cp.toString(16).padStart(8, '0')}`;
}

/** A literal character: letters, digits and space as they are, any other as an escape, so none can start an ARE construct. */
function literal(c: string): string {
  return /[A-Za-z0-9 ]/.test(c) ? c : codePoint(c.codePointAt(0) as number);
}

/** Translates `pattern`, a valid ECMAScript pattern (`u` flag), into a PostgreSQL ARE of the same meaning. */
export function ecmaToPostgresRegex(pattern: string): string {
  const chars = [...pattern];
  let i = 0;
  let out = '';
  /** An escape after the backslash at chars[i - 1]; inside a class when `inClass`. Returns ARE text. */
  const escape = (inClass: boolean): string => {
    const c = chars[i++] as string;
    if (CONTROL.has(c)) return `\\${c}`;
    const members = CLASS_MEMBERS[c.toLowerCase()];
    if (members !== undefined) {
      const negated = c !== c.toLowerCase();
      if (inClass && negated) throw unsupported(`a negated class escape (\\${c}) inside [...]`);
      return inClass ? members : `[${negated ? '^' : ''}${members}]`;
    }
    if (c === 'b') return inClass ? codePoint(8) : BOUNDARY;
    if (c === 'B' && !inClass) return NOT_BOUNDARY;
    if (c === 'x') {
      const hex = chars.slice(i, i + 2).join('');
      i += 2;
      return codePoint(parseInt(hex, 16));
    }
    if (c === 'u') {
      if (chars[i] === '{') {
        const end = chars.indexOf('}', i);
        const cp = parseInt(chars.slice(i + 1, end).join(''), 16);
        i = end + 1;
        return codePoint(cp);
      }
      const hex = chars.slice(i, i + 4).join('');
      i += 4;
      const unit = parseInt(hex, 16);
      // A surrogate pair written as two \u escapes is one code point (the `u` flag).
      if (unit >= 0xd800 && unit <= 0xdbff && chars[i] === '\\' && chars[i + 1] === 'u') {
        const low = parseInt(chars.slice(i + 2, i + 6).join(''), 16);
        if (low >= 0xdc00 && low <= 0xdfff) {
          i += 6;
          return codePoint(0x10000 + (unit - 0xd800) * 0x400 + (low - 0xdc00));
        }
      }
      return codePoint(unit);
    }
    if (c === 'c') {
      const letter = (chars[i++] as string).toUpperCase();
      return codePoint(letter.charCodeAt(0) - 64);
    }
    if (c === '0') return codePoint(0);
    if (/[1-9]/.test(c)) {
      if (inClass) throw unsupported(`\\${c} inside [...]`);
      let n = c;
      while (chars[i] !== undefined && /[0-9]/.test(chars[i] as string)) n += chars[i++];
      if (Number(n) > 9) throw unsupported(`the backreference \\${n}`);
      return `\\${n}`;
    }
    if (c === 'p' || c === 'P') throw unsupported(`a Unicode property escape (\\${c}{...})`);
    if (c === 'k') throw unsupported('a named backreference (\\k<...>)');
    // Any other escape is the character itself (the `u` flag allows only syntax characters and '/', '-').
    return codePoint(c.codePointAt(0) as number);
  };
  const bracket = (): string => {
    let body = '';
    let negated = false;
    if (chars[i] === '^') {
      negated = true;
      i++;
    }
    if (chars[i] === ']') throw unsupported(negated ? 'the class [^] (any character)' : 'the empty class []');
    while (chars[i] !== ']') {
      const c = chars[i++] as string;
      if (c === '\\') body += escape(true);
      else if (c === '-') body += '-';
      else body += literal(c);
    }
    i++;
    return `[${negated ? '^' : ''}${body}]`;
  };
  while (i < chars.length) {
    const c = chars[i++] as string;
    switch (c) {
      case '\\':
        out += escape(false);
        break;
      case '[':
        out += bracket();
        break;
      case '.':
        out += DOT;
        break;
      case '(': {
        // (?: (?= (?! (?<= (?<! mean the same in ARE; (?<name> has no ARE form.
        const kind = chars[i] === '?' ? chars.slice(i, i + 3).join('') : '';
        if (kind.startsWith('?<') && kind !== '?<=' && kind !== '?<!') throw unsupported('a named group (?<name>...)');
        const prefix = kind === '' ? '' : kind.startsWith('?<') ? kind : kind.slice(0, 2);
        out += `(${prefix}`;
        i += prefix.length;
        break;
      }
      case '{': {
        // With the `u` flag a brace is only ever a quantifier, {n}, {n,} or {n,m}: the same in ARE.
        const end = chars.indexOf('}', i);
        out += chars.slice(i - 1, end + 1).join('');
        i = end + 1;
        break;
      }
      case '^':
      case '$':
      case '|':
      case ')':
      case '*':
      case '+':
      case '?':
        out += c;
        break;
      default:
        out += literal(c);
    }
  }
  return out;
}
