/**
 * Builders of `$batch` bodies for tests: multipart/mixed (OData 4.0 Part 1 §11.7.7) with CRLF line
 * ends, and JSON batch objects (JSON Format §19), plus a reader of multipart responses.
 */

/** One `application/http` part: request line, headers, body, with optional MIME headers (Content-ID). */
export function httpPart(line: string, opts: { headers?: Record<string, string>; body?: unknown; mime?: Record<string, string> } = {}): string {
  const mime = Object.entries({ 'Content-Type': 'application/http', 'Content-Transfer-Encoding': 'binary', ...opts.mime }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  const body = opts.body === undefined ? '' : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const headers = { ...(opts.body !== undefined && typeof opts.body !== 'string' ? { 'Content-Type': 'application/json' } : {}), ...opts.headers };
  const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return `${mime}\r\n${line.includes(' HTTP/') ? line : `${line} HTTP/1.1`}\r\n${head}\r\n${body}`;
}

/** A change set part holding `parts` under its own boundary. */
export function changeSet(boundary: string, parts: readonly string[]): string {
  return `Content-Type: multipart/mixed; boundary=${boundary}\r\n\r\n${multipart(boundary, parts)}`;
}

/** A multipart body: each part after a delimiter line, then the close delimiter. */
export function multipart(boundary: string, parts: readonly string[]): string {
  return `${parts.map((p) => `--${boundary}\r\n${p}\r\n`).join('')}--${boundary}--\r\n`;
}

/** A response part as a test reads it. */
export interface ReadPart {
  readonly contentId?: string;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** The parts of a change set response (then status is 0). */
  readonly parts?: ReadPart[];
}

function boundaryIn(contentType: string): string {
  const m = /boundary=("?)([^";]+)\1/.exec(contentType);
  if (m === null) throw new Error(`no boundary in ${contentType}`);
  return m[2] as string;
}

/** Reads a multipart batch response (CRLF framing as the service writes it). */
export function readMultipart(contentType: string, text: string): ReadPart[] {
  const boundary = boundaryIn(contentType);
  const close = text.indexOf(`--${boundary}--`);
  if (close < 0) throw new Error('no close delimiter');
  return text
    .slice(0, close)
    .split(`--${boundary}\r\n`)
    .slice(1)
    .map((chunk) => {
      const content = chunk.endsWith('\r\n') ? chunk.slice(0, -2) : chunk;
      const blank = content.indexOf('\r\n\r\n');
      const mime: Record<string, string> = {};
      for (const line of content.slice(0, blank).split('\r\n')) mime[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      const inner = content.slice(blank + 4);
      const id = mime['content-id'];
      if ((mime['content-type'] ?? '').startsWith('multipart/mixed')) return { status: 0, headers: {}, body: '', parts: readMultipart(mime['content-type'] as string, inner) };
      const headEnd = inner.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = inner.slice(0, headEnd).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      return { ...(id === undefined ? {} : { contentId: id }), status: Number(statusLine.split(' ')[1]), headers, body: inner.slice(headEnd + 4) };
    });
}
