/**
 * Reads a request body into a Buffer with a size cap; over the cap the request fails with 413
 * without buffering the rest.
 */
import type { Request } from 'express';
import { PayloadTooLargeError } from '../errors/odata-error.js';

/** The whole body (undefined when there is none), or PayloadTooLargeError. */
export async function readBody(req: Request, limit: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw new PayloadTooLargeError(limit);
  }
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
