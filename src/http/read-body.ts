/**
 * Reads a request body into a Buffer with a size cap; over the cap the request fails with 413
 * without buffering the rest.
 */
import type { IncomingMessage } from 'node:http';
import { PayloadTooLargeError } from '../errors/odata-error.js';

/** false when the message has no body: neither a length nor a transfer coding (RFC 9112 §6.3). */
export function hasBody(req: IncomingMessage): boolean {
  return req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
}

/** The whole body (undefined when there is none), or PayloadTooLargeError. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  if (!hasBody(req)) return undefined;
  const length = req.headers['content-length'];
  const declared = Number(length ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw new PayloadTooLargeError(limit);
  }
  if (declared === 0) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw new PayloadTooLargeError(limit);
    }
    chunks.push(chunk);
  }
  return size === 0 ? undefined : Buffer.concat(chunks, size);
}
