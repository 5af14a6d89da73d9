/**
 * Parsed resource paths by template: a path is parsed once per shape, with every GUID in it replaced
 * by a placeholder GUID of the same length, and later paths of that shape only get their GUIDs filled
 * into a copy of the parsed template. `/companies(<id>)/engChangeNotices(<id>)` is one template for
 * all ids, so a GET by key skips the lexer and parser (about a fifth of its time in the core).
 *
 * The template's parse is used only when it is provably the parse of the path: every placeholder
 * must come back exactly once, intact, as the value of a GUID literal, and appear nowhere else.
 * Otherwise (a GUID inside a string key, glued to a name, broken by percent-encoding, or a parse
 * error) the path itself is parsed, so results and error messages are always those of parseResourcePath.
 * A placeholder starts with a digit where its GUID does and with a letter where its GUID does: the
 * lexer reads `-1...` as a number and `-a...` as a negation, and nothing else in a GUID literal
 * depends on which hexadecimal digits it has.
 */
import { randomBytes } from 'node:crypto';
import type { ResourcePath } from './ast.js';
import { checkUrlLength, DEFAULT_PARSE_LIMITS, type ParseLimits } from './parse-limits.js';
import { parseResourcePath } from './parse-path.js';
import { SecondSightCache } from '../util/second-sight-cache.js';

/** The length of a GUID run: 8-4-4-4-12 hexadecimal digits. */
export const GUID_LENGTH = 36;

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/** true when a GUID run starts at `i` (its dashes are checked first: they rule out most places at once). */
function guidAt(text: string, i: number): boolean {
  if (text.charCodeAt(i + 8) !== 0x2d || text.charCodeAt(i + 13) !== 0x2d || text.charCodeAt(i + 18) !== 0x2d || text.charCodeAt(i + 23) !== 0x2d) return false;
  for (let j = 0; j < GUID_LENGTH; j++) {
    if (j === 8 || j === 13 || j === 18 || j === 23) continue;
    if (!isHexDigit(text.charCodeAt(i + j))) return false;
  }
  return true;
}

/**
 * Where the GUID runs of `text` start: the matches of /[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}/g,
 * leftmost first and not overlapping. A run's first dash is its ninth character, so only the places
 * eight before a dash are tried (a path has few dashes). A scan, because a global replace with a
 * callback took about 2.4 µs of a GET by key under load.
 */
export function guidRuns(text: string): number[] {
  const starts: number[] = [];
  let from = 8;
  for (;;) {
    const dash = text.indexOf('-', from);
    // A run starting at dash - 8 ends at dash + 28; a later dash would end later still.
    if (dash < 0 || dash + GUID_LENGTH - 8 > text.length) return starts;
    const start = dash - 8;
    if (guidAt(text, start)) {
      starts.push(start);
      from = start + GUID_LENGTH + 8;
    } else {
      from = dash + 1;
    }
  }
}

/**
 * A template's parse, how many GUIDs it takes and the objects of the parse that hold a placeholder
 * (themselves or below: only these are copied when filling), or null when its paths must be parsed themselves.
 */
type Entry = { readonly path: ResourcePath; readonly slots: number; readonly holders: Holders } | null;

/** The objects and arrays of a parse that hold a placeholder, each with the keys (or indexes) under which one is held. */
type Holders = ReadonlyMap<object, readonly string[]>;

/** Parses resource paths through templates (see the file comment). Bounded: cleared when full. */
export class PathTemplates {
  private readonly entries: SecondSightCache<Entry>;
  /** What placeholders have in common, random per instance. */
  private readonly shape: PlaceholderShape;
  /** Placeholder i for a GUID starting with a digit ([0]) or a letter ([1]), made once. */
  private readonly placeholders: [string[], string[]] = [[], []];

  /** `random(n)` gives n random bytes (tests pass fixed ones). */
  constructor(
    limit = 256,
    random: (n: number) => Buffer = randomBytes,
    private readonly limits: ParseLimits = DEFAULT_PARSE_LIMITS,
  ) {
    this.entries = new SecondSightCache<Entry>(limit);
    const bytes = random(11);
    const hex = bytes.subarray(0, 10).toString('hex');
    const b = bytes[10] as number;
    this.shape = {
      tail: `${hex.slice(1, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-`,
      digit: String(b % 10),
      letter: 'abcdef'[b % 6] as string,
    };
  }

  /** The parse of `rawPath`, equal to parseResourcePath(rawPath) (which also throws its errors). */
  parse(rawPath: string): ResourcePath {
    const limits = this.limits;
    checkUrlLength(rawPath, limits, 'path');
    const starts = guidRuns(rawPath);
    const guids: string[] = [];
    let template = rawPath;
    if (starts.length > 0) {
      const parts: string[] = [];
      let from = 0;
      for (const start of starts) {
        const g = rawPath.slice(start, start + GUID_LENGTH);
        parts.push(rawPath.slice(from, start), this.placeholder(guids.push(g) - 1, g.charCodeAt(0) > 0x39));
        from = start + GUID_LENGTH;
      }
      parts.push(rawPath.slice(from));
      template = parts.join('');
    }
    // A template is learned the second time it comes: paths that never repeat (other keys than
    // GUIDs, say line numbers) cost a lookup, not a second parse.
    const entry = this.entries.get(template, () => this.learn(template, guids.length));
    if (entry === undefined || entry === null) return parseResourcePath(rawPath, limits);
    if (entry.slots === 0) return entry.path;
    return fill(entry.path, entry.holders, guids) as ResourcePath;
  }

  /** Placeholder i for a GUID that starts with a letter (`letterFirst`) or a digit. */
  private placeholder(i: number, letterFirst: boolean): string {
    const made = this.placeholders[letterFirst ? 1 : 0];
    let p = made[i];
    if (p === undefined) made[i] = p = `${letterFirst ? this.shape.letter : this.shape.digit}${this.shape.tail}${i.toString(16).padStart(12, '0')}`;
    return p;
  }

  /** Parses a template and checks that its placeholders are exactly its GUID literals. */
  private learn(template: string, slots: number): Entry {
    let path: ResourcePath;
    try {
      path = parseResourcePath(template, this.limits);
    } catch {
      return null; // the path's own parse gives the error, in its own words
    }
    const seen = new Array<number>(slots).fill(0);
    const holders = new Map<object, string[]>();
    if (!placeholdersOk(path, this.shape, seen, false, holders) || seen.some((n) => n !== 1)) return null;
    return { path, slots, holders };
  }
}

/**
 * Placeholder i is `<digit or letter><tail><i as 12 hexadecimal digits>`: 36 characters, a GUID's
 * shape, with `tail` (`xxxxxxx-xxxx-xxxx-xxxx-`) random per instance.
 */
interface PlaceholderShape {
  readonly tail: string;
  readonly digit: string;
  readonly letter: string;
}

/** The slot of a placeholder's text (`tail` at 1..23 already checked). */
function slotOf(text: string): number {
  return Number.parseInt(text.slice(24), 16);
}

/**
 * true when every string in `node` containing the placeholders' tail is a whole placeholder and the
 * value of a GUID literal (`inGuid`); counts each placeholder's occurrences in `seen` and adds every
 * object or array holding one (itself or below) to `holders`.
 */
function placeholdersOk(node: unknown, shape: PlaceholderShape, seen: number[], inGuid: boolean, holders: Map<object, string[]>): boolean {
  if (typeof node === 'string') {
    if (!node.includes(shape.tail)) return true;
    if (!inGuid || node.length !== 36 || node.indexOf(shape.tail) !== 1 || (node[0] !== shape.digit && node[0] !== shape.letter)) return false;
    const i = slotOf(node);
    if (!(i >= 0 && i < seen.length)) return false;
    seen[i] = (seen[i] as number) + 1;
    return true;
  }
  if (node === null || typeof node !== 'object') return true;
  const guid = !Array.isArray(node) && (node as { kind?: unknown }).kind === 'guid';
  const keys: string[] = [];
  for (const [k, v] of Object.entries(node)) {
    const before = seen.reduce((a, b) => a + b, 0);
    if (!placeholdersOk(v, shape, seen, guid && k === 'value', holders)) return false;
    if (seen.reduce((a, b) => a + b, 0) > before) keys.push(k);
  }
  if (keys.length > 0) holders.set(node, keys);
  return true;
}

/**
 * A copy of `node` with each placeholder (a GUID literal's value) replaced by its GUID, lower-cased
 * as the parser does; parts without a placeholder are shared with the template (the AST is immutable).
 */
function fill(node: unknown, holders: Holders, guids: readonly string[]): unknown {
  const keys = holders.get(node as object);
  if (keys === undefined) return node;
  if (Array.isArray(node)) {
    const copy = node.slice();
    for (const k of keys) copy[Number(k)] = fill(node[Number(k)], holders, guids);
    return copy;
  }
  const o = node as Record<string, unknown>;
  if (o['kind'] === 'guid') return { ...o, value: (guids[slotOf(o['value'] as string)] as string).toLowerCase() };
  const copy = { ...o };
  for (const k of keys) copy[k] = fill(o[k], holders, guids);
  return copy;
}
