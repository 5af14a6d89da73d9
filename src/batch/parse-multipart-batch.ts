/**
 * Reads a multipart/mixed batch (OData 4.0 Part 1 §11.7.7): top-level parts are `application/http`
 * requests or `multipart/mixed` change sets, whose parts are `application/http` requests; a part's
 * Content-ID (in its MIME headers, or in the request's own headers) is its request id.
 */
import { BatchFormatError } from '../errors/odata-error.js';
import { mediaType } from '../core/request-body.js';
import type { BatchPart, BatchRequest, BatchUnit } from './batch-request.js';
import { parseHttpRequest } from './http-message.js';
import { boundaryOf, capital, parseMultipart, type MimePart } from './multipart.js';

/** Transfer encodings that leave the bytes as they are (RFC 2045 §6.1); OData parts are `binary`. */
const IDENTITY_ENCODINGS: ReadonlySet<string> = new Set(['binary', '8bit', '7bit']);

/** Parses the body of a multipart batch; `tooMany` is the error once more than `maxParts` requests are found. */
export function parseMultipartBatch(body: Buffer | undefined, contentType: string, maxParts: number, tooMany: () => Error): BatchRequest {
  const boundary = boundaryOf(contentType, 'the batch');
  if (body === undefined || body.length === 0) throw new BatchFormatError('The batch has no body; send its parts, each framed by the boundary.');
  let count = 0;
  const request = (part: MimePart, label: string): BatchPart => {
    if (++count > maxParts) throw tooMany();
    checkEncoding(part, label);
    const http = parseHttpRequest(part.content, label);
    const id = part.headers['content-id'] ?? http.headers['content-id'];
    return { label, id: id === undefined || id === '' ? undefined : id, method: http.method, url: http.target, headers: http.headers, body: http.body, dependsOn: [] };
  };
  const units: BatchUnit[] = parseMultipart(body, boundary, 'the batch', maxParts, tooMany).map((part, i): BatchUnit => {
    const label = `part ${i + 1}`;
    const type = mediaType(part.headers['content-type']);
    if (type === 'application/http') return { kind: 'request', part: request(part, label) };
    if (type === 'multipart/mixed') {
      checkEncoding(part, label);
      const what = `the change set of ${label}`;
      const inner = parseMultipart(part.content, boundaryOf(part.headers['content-type'] ?? '', what), what, maxParts, tooMany);
      const parts = inner.map((p, j) => {
        const innerLabel = `part ${i + 1}.${j + 1}`;
        const innerType = mediaType(p.headers['content-type']);
        if (innerType === 'multipart/mixed') throw new BatchFormatError(`${capital(innerLabel)} is a change set inside a change set; change sets cannot nest.`);
        if (innerType !== 'application/http') throw missingType(innerLabel, p, 'application/http');
        return request(p, innerLabel);
      });
      return { kind: 'changeSet', group: `changeset${i + 1}`, parts };
    }
    throw missingType(label, part, 'application/http (one request) or multipart/mixed (a change set)');
  });
  return { format: 'multipart', units };
}

function missingType(label: string, part: MimePart, expected: string): BatchFormatError {
  const sent = part.headers['content-type'];
  return new BatchFormatError(
    sent === undefined
      ? `${capital(label)} has no Content-Type header; it must be ${expected}.`
      : `${capital(label)} has Content-Type '${sent}'; it must be ${expected}.`,
  );
}

function checkEncoding(part: MimePart, label: string): void {
  const encoding = part.headers['content-transfer-encoding']?.toLowerCase();
  if (encoding !== undefined && !IDENTITY_ENCODINGS.has(encoding)) {
    throw new BatchFormatError(`${capital(label)} has Content-Transfer-Encoding '${encoding}'; parts are sent as they are (binary).`);
  }
}
