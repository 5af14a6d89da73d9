/**
 * The `application/http` content of a multipart batch part (OData 4.0 Part 1 §11.7.7.1): a request
 * line (`METHOD request-target [HTTP/1.1]`), header lines, an empty line and the body; and the same
 * framing for each part of the response (`HTTP/1.1 200 OK`, headers, body).
 */
import { STATUS_CODES } from 'node:http';
import { BatchFormatError } from '../errors/odata-error.js';
import type { ODataResponse } from '../core/request.js';
import { capital, headerBlock, shorten } from './multipart.js';

/** A request read from an `application/http` part. */
export interface HttpRequestPart {
  /** Upper-case method. */
  readonly method: string;
  /** The request target as sent (absolute URL, absolute path, relative path or `$<Content-ID>`...). */
  readonly target: string;
  /** Headers by lower-case name. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | undefined;
}

const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) +(\S+)(?: +HTTP\/(\d)\.(\d))? *$/;

/** UTF-8 text of latin1-decoded characters (the bytes of a header value or request line). */
function utf8(latin1: string): string {
  return Buffer.from(latin1, 'latin1').toString('utf8');
}

/** Reads the request of an `application/http` part; a BatchFormatError names what is wrong and where (`what`). */
export function parseHttpRequest(content: Buffer, what: string): HttpRequestPart {
  const text = content.toString('latin1');
  let i = 0;
  // Clients may leave empty lines before the request line.
  for (;;) {
    if (text.startsWith('\r\n', i)) i += 2;
    else if (text.charCodeAt(i) === 0x0a) i++;
    else break;
  }
  const nl = text.indexOf('\n', i);
  const lineStop = nl < 0 ? text.length : nl;
  const line = text.slice(i, lineStop > i && text.charCodeAt(lineStop - 1) === 0x0d ? lineStop - 1 : lineStop);
  if (line.trim() === '') throw new BatchFormatError(`${capital(what)} has no request line: after its headers and an empty line it needs e.g. 'GET engChangeNotices HTTP/1.1'.`);
  const m = REQUEST_LINE.exec(line);
  if (m === null) {
    const spaces = /^\S+ .+ .+ HTTP\/\d\.\d$/.test(line) ? ' (a space in the URL must be sent as %20)' : '';
    throw new BatchFormatError(`${capital(what)} has no valid request line: '${shorten(utf8(line))}'; send 'METHOD URL HTTP/1.1'${spaces}.`);
  }
  if (m[3] !== undefined && m[3] !== '1') throw new BatchFormatError(`${capital(what)} is an HTTP/${m[3]}.${m[4] ?? ''} request; parts of a batch are HTTP/1.1.`);
  const { headers: raw, next } = headerBlock(text, nl < 0 ? text.length : nl + 1, text.length, what, false);
  const headers: Record<string, string> = {};
  for (const k in raw) headers[k] = utf8(raw[k] ?? '');
  if (headers['transfer-encoding'] !== undefined) {
    throw new BatchFormatError(`${capital(what)} has a Transfer-Encoding header; the body of a part is sent as it is (with Content-Length, or up to the next boundary).`);
  }
  let body = content.subarray(next);
  const length = headers['content-length'];
  if (length !== undefined) {
    const n = /^\d{1,10}$/.test(length) ? Number(length) : NaN;
    if (!Number.isFinite(n)) throw new BatchFormatError(`${capital(what)} has an invalid Content-Length '${shorten(length)}'.`);
    if (n > body.length) throw new BatchFormatError(`${capital(what)} declares Content-Length ${n}, but its body has ${body.length} bytes.`);
    body = body.subarray(0, n);
  }
  return { method: (m[1] ?? '').toUpperCase(), target: utf8(m[2] ?? ''), headers, body: body.length === 0 ? undefined : body };
}

/** The `application/http` content of a response part: status line, headers, empty line, body. */
export function httpResponseBytes(res: ODataResponse): Buffer {
  const body = res.body === undefined || res.status === 204 ? undefined : typeof res.body === 'string' ? Buffer.from(res.body, 'utf8') : res.body;
  let head = `HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? ''}\r\n`;
  for (const name in res.headers) {
    const value = res.headers[name];
    if (value === undefined) continue;
    for (const v of typeof value === 'string' ? [value] : value) head += `${name}: ${v}\r\n`;
  }
  if (body !== undefined) head += `Content-Length: ${body.length}\r\n`;
  head += '\r\n';
  return body === undefined ? Buffer.from(head, 'utf8') : Buffer.concat([Buffer.from(head, 'utf8'), body]);
}
