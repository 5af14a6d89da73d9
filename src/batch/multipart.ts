/**
 * MIME multipart framing (RFC 2046 §5.1.1), as OData's multipart batch format uses it (OData 4.0
 * Part 1 §11.7.7 (4.01 §11.7.7)): the boundary parameter, the preamble and epilogue (ignored),
 * delimiter lines with transport padding, the close delimiter, each body part's header block and
 * content. Line ends are CRLF as RFC 2046 asks; a bare LF is accepted too, since hand-written and
 * shell-built bodies use it. Every problem is a BatchFormatError that names it and where it is.
 *
 * Our own: the npm parsers measured did not fit (README, "Dependencies and why").
 */
import { BatchFormatError } from '../errors/odata-error.js';

/** One body part: its headers (lower-case names) and its content. */
export interface MimePart {
  readonly headers: Readonly<Record<string, string>>;
  readonly content: Buffer;
  /** Byte offset of the part's first header line in the message (for messages). */
  readonly offset: number;
}

/** RFC 2046 `bcharsnospace` and space: what a boundary may consist of (1-70 characters, not ending in a space). */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;
/** An RFC 9110 token: a header name. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The value of a `name=value` parameter of a Content-Type header (quoted or not), lower-case name. */
export function contentTypeParameter(contentType: string, name: string): string | undefined {
  const re = /;\s*([^=;\s]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g;
  for (let m = re.exec(contentType); m !== null; m = re.exec(contentType)) {
    if ((m[1] ?? '').toLowerCase() !== name) continue;
    const raw = (m[2] ?? '').trim();
    return raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
  }
  return undefined;
}

/** The boundary of a `multipart/mixed` Content-Type, or a BatchFormatError naming what is wrong with it. */
export function boundaryOf(contentType: string, what: string): string {
  const boundary = contentTypeParameter(contentType, 'boundary');
  if (boundary === undefined || boundary === '') {
    throw new BatchFormatError(`The Content-Type of ${what} is multipart/mixed without a boundary parameter; send e.g. 'multipart/mixed; boundary=batch_1'.`);
  }
  if (!BOUNDARY.test(boundary)) {
    throw new BatchFormatError(`The boundary '${boundary}' of ${what} is not a valid MIME boundary: 1 to 70 letters, digits and '()+_,-./:=? (RFC 2046 §5.1.1), not ending in a space.`);
  }
  return boundary;
}

/** The index just past the line end at `i` (CRLF or LF), or -1 when there is none there. */
function lineEnd(text: string, i: number): number {
  if (text.charCodeAt(i) === 0x0a) return i + 1;
  if (text.charCodeAt(i) === 0x0d && text.charCodeAt(i + 1) === 0x0a) return i + 2;
  return -1;
}

function skipPadding(text: string, i: number): number {
  while (text.charCodeAt(i) === 0x20 || text.charCodeAt(i) === 0x09) i++;
  return i;
}

/** What follows a `--boundary` at `i` (just past it): the close delimiter, a delimiter line, or neither. */
function delimiterKind(text: string, i: number): { kind: 'close' } | { kind: 'open'; next: number } | undefined {
  if (text.startsWith('--', i)) return { kind: 'close' };
  const next = lineEnd(text, skipPadding(text, i));
  return next < 0 ? undefined : { kind: 'open', next };
}

/**
 * Splits a multipart body into its parts. The first delimiter may follow a preamble; text after the
 * close delimiter (the epilogue) is ignored. Throws once more than `maxParts` parts are found.
 */
export function parseMultipart(body: Buffer, boundary: string, what: string, maxParts: number, onTooMany: () => Error): MimePart[] {
  // latin1 maps each byte to one character, so string offsets are byte offsets into `body`.
  const text = body.toString('latin1');
  const dash = `--${boundary}`;
  let at = -1;
  let first: ReturnType<typeof delimiterKind>;
  for (let i = text.indexOf(dash); i >= 0; i = text.indexOf(dash, i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) !== 0x0a) continue;
    first = delimiterKind(text, i + dash.length);
    if (first !== undefined) {
      at = i;
      break;
    }
  }
  if (at < 0 || first === undefined) {
    throw new BatchFormatError(`${capital(what)} has no line '${dash}': the body does not use the boundary its Content-Type names.`);
  }
  const parts: MimePart[] = [];
  if (first.kind === 'close') return parts;
  let start = first.next;
  for (;;) {
    // The next delimiter: a line end, then --boundary, then padding and a line end or '--'.
    let found = -1;
    let kind: ReturnType<typeof delimiterKind>;
    for (let i = text.indexOf(`\n${dash}`, start - 1); i >= 0; i = text.indexOf(`\n${dash}`, i + 1)) {
      kind = delimiterKind(text, i + 1 + dash.length);
      if (kind !== undefined) {
        found = i;
        break;
      }
    }
    if (found < 0 || kind === undefined) {
      throw new BatchFormatError(`${capital(what)} ends without its closing delimiter '${dash}--' (part ${parts.length + 1}, from byte ${start}, is not terminated).`);
    }
    const end = found > start && text.charCodeAt(found - 1) === 0x0d ? found - 1 : Math.max(found, start);
    if (parts.length >= maxParts) throw onTooMany();
    parts.push(bodyPart(body, text, start, end, `part ${parts.length + 1} of ${what}`));
    if (kind.kind === 'close') return parts;
    start = kind.next;
  }
}

/** One body part between `start` and `end`: its header block (up to an empty line) and its content. */
function bodyPart(body: Buffer, text: string, start: number, end: number, what: string): MimePart {
  const { headers, next } = headerBlock(text, start, end, what, true);
  return { headers, content: body.subarray(next, end), offset: start };
}

/**
 * Reads header lines from `start` up to an empty line (or `end`): `name: value`, with continuation
 * lines (starting with a space or tab) folded into the header before (RFC 5322 §2.2.3). Returns the
 * headers by lower-case name (repeated ones joined with ', ') and where the content begins.
 * `needBlank`: the block must end with an empty line before `end` (MIME parts may have none only when empty).
 */
export function headerBlock(text: string, start: number, end: number, what: string, needBlank: boolean): { headers: Record<string, string>; next: number } {
  const headers: Record<string, string> = {};
  let last: string | undefined;
  let i = start;
  while (i < end) {
    const nl = text.indexOf('\n', i);
    const stop = nl < 0 || nl >= end ? end : nl;
    const line = text.slice(i, stop > i && text.charCodeAt(stop - 1) === 0x0d ? stop - 1 : stop);
    const next = stop < end ? stop + 1 : end;
    if (line === '') return { headers, next };
    if ((line.startsWith(' ') || line.startsWith('\t')) && last !== undefined) {
      headers[last] = `${headers[last] ?? ''} ${line.trim()}`;
    } else {
      const colon = line.indexOf(':');
      const name = colon > 0 ? line.slice(0, colon).trim() : '';
      if (!TOKEN.test(name)) {
        throw new BatchFormatError(`${capital(what)} has a header line that is not 'Name: value': '${shorten(line)}'${needBlank ? ' (a part needs its headers, an empty line, then its content)' : ''}.`);
      }
      last = name.toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[last] = headers[last] === undefined ? value : `${headers[last]}, ${value}`;
    }
    i = next;
  }
  if (needBlank && i > start) throw new BatchFormatError(`${capital(what)} has no empty line after its headers.`);
  return { headers, next: end };
}

/** `text` cut to 60 characters for a message. */
export function shorten(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** `what` with a capital first letter, to start a message. */
export function capital(what: string): string {
  return what.charAt(0).toUpperCase() + what.slice(1);
}

/** A multipart body from already framed parts (each: its header lines, then its content). */
export function writeMultipart(boundary: string, parts: readonly { readonly headers: string; readonly content: Buffer | string }[]): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n${p.headers}\r\n`, 'utf8'));
    chunks.push(typeof p.content === 'string' ? Buffer.from(p.content, 'utf8') : p.content);
    chunks.push(Buffer.from('\r\n', 'latin1'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`, 'latin1'));
  return Buffer.concat(chunks);
}
