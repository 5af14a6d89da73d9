/**
 * Response compression (conventions §9): gzip, or br when the client rates br higher, chosen from
 * `Accept-Encoding` (RFC 9110 §12.5.3) for compressible bodies of at least 1 KiB. The body goes through
 * a node:zlib stream, which compresses on libuv's thread pool and hands each compressed chunk to the
 * socket as it is produced, under the socket's backpressure: a 20,000-row page is never held
 * compressed as a whole. A request without `Accept-Encoding` pays one header lookup.
 */
import zlib from 'node:zlib';
import { pipeline } from 'node:stream';
import type { ServerResponse } from 'node:http';
import compressible from 'compressible';
import Negotiator from 'negotiator';
import vary from 'vary';

/** Bodies shorter than this go out as they are: a few hundred bytes saved cost more than they save. */
export const MIN_COMPRESSED_BYTES = 1024;

/** A content coding the service sends (RFC 9110 §8.4.1). */
export type ContentCoding = 'gzip' | 'br';

/** Offered codings; among codings the client rates alike, the first wins (gzip, the cheaper one). */
const OFFERED = ['gzip', 'br', 'identity'] as const;

/**
 * Cheap levels: the service is bound by CPU, not by the network, and on a large page of JSON the
 * dearer levels compress only a little better for about twice the time (gzip level 6, zlib's default,
 * against level 1; brotli quality 4 against quality 1), time every other request waits for too.
 */
const GZIP_OPTIONS: zlib.ZlibOptions = { level: 1 };

/** Brotli quality 1 in text mode (see GZIP_OPTIONS), told the body's size so it sizes its window. */
function brotliOptions(size: number): zlib.BrotliOptions {
  return {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 1,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size,
    },
  };
}

/** The coding an `Accept-Encoding` value asks for, or undefined for none (identity). */
export function negotiateCoding(acceptEncoding: string): ContentCoding | undefined {
  const best = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }).encodings(OFFERED, { preferred: OFFERED })[0];
  return best === 'gzip' || best === 'br' ? best : undefined;
}

/** The body's size in bytes; a string's UTF-8 length is computed only when its length does not decide. */
function bytesAtLeast(body: string | Buffer, bytes: number): boolean {
  if (typeof body !== 'string') return body.length >= bytes;
  // A UTF-8 character takes 1 to 3 bytes per UTF-16 code unit.
  if (body.length >= bytes) return true;
  return body.length * 3 >= bytes && Buffer.byteLength(body, 'utf8') >= bytes;
}

/**
 * Whether the response depends on the request's `Accept-Encoding`: a body of a compressible type and
 * at least MIN_COMPRESSED_BYTES.
 */
export function compressionApplies(contentType: string | readonly string[] | undefined, body: string | Buffer): boolean {
  return typeof contentType === 'string' && bytesAtLeast(body, MIN_COMPRESSED_BYTES) && compressible(contentType) === true;
}

/**
 * Ends `res` with `body` in the coding `acceptEncoding` asks for, compressed as a stream, or as it is.
 * `Vary: Accept-Encoding` goes on every response whose coding depended on it (only requests that sent
 * the header get here; an identity response without Vary is valid for every client).
 */
export function endNegotiated(res: ServerResponse, body: string | Buffer, acceptEncoding: string, onError: (e: Error) => void): void {
  const coding = negotiateCoding(acceptEncoding);
  vary(res, 'Accept-Encoding');
  if (coding === undefined) {
    res.end(body);
    return;
  }
  res.setHeader('Content-Encoding', coding);
  res.removeHeader('Content-Length');
  const encoder = coding === 'gzip' ? zlib.createGzip(GZIP_OPTIONS) : zlib.createBrotliCompress(brotliOptions(body.length));
  pipeline(encoder, res, (e) => {
    // A client that goes away mid-body ends the pipeline with ERR_STREAM_PREMATURE_CLOSE: nothing to report.
    if (e && (e as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') onError(e);
  });
  encoder.end(body);
}
