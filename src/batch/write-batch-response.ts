/**
 * The response to a batch, in the format the client asked for (OData 4.0 Part 1 §11.7.7.2 multipart;
 * JSON Format §19.5): one response per request run, in request order. A change set that failed is
 * answered in multipart by the failure alone (one `application/http` part for the whole change set);
 * in JSON every request of it gets a response object (the failure, and 424 for the others).
 */
import { randomUUID } from 'node:crypto';
import type { ODataResponse } from '../core/request.js';
import { mediaType } from '../core/request-body.js';
import type { BatchFormat, BatchPart } from './batch-request.js';
import { httpResponseBytes } from './http-message.js';
import { writeMultipart } from './multipart.js';

/** The response of one request of the batch. */
export interface PartResult {
  readonly part: BatchPart;
  readonly response: ODataResponse;
}

/** What a unit of the batch gave. */
export type UnitResult =
  | { readonly kind: 'request'; readonly result: PartResult }
  | { readonly kind: 'changeSet'; readonly group: string; readonly results: readonly PartResult[]; readonly failure?: PartResult };

/** The batch response with the results of the units run; `headers` are added to it (Preference-Applied). */
export function writeBatchResponse(results: readonly UnitResult[], format: BatchFormat, headers: Record<string, string>): ODataResponse {
  return format === 'multipart' ? multipartResponse(results, headers) : jsonResponse(results, headers);
}

function httpPart(result: PartResult, withId: boolean): { headers: string; content: Buffer } {
  const id = withId && result.part.id !== undefined ? `Content-ID: ${result.part.id}\r\n` : '';
  return { headers: `Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n${id}`, content: httpResponseBytes(result.response) };
}

function multipartResponse(results: readonly UnitResult[], headers: Record<string, string>): ODataResponse {
  const boundary = `batchresponse_${randomUUID()}`;
  const parts = results.map((unit) => {
    if (unit.kind === 'request') return httpPart(unit.result, true);
    if (unit.failure !== undefined) return httpPart(unit.failure, false);
    const inner = `changesetresponse_${randomUUID()}`;
    return { headers: `Content-Type: multipart/mixed; boundary=${inner}\r\n`, content: writeMultipart(inner, unit.results.map((r) => httpPart(r, true))) };
  });
  return { status: 200, headers: { 'Content-Type': `multipart/mixed; boundary=${boundary}`, 'OData-Version': '4.0', ...headers }, body: writeMultipart(boundary, parts) };
}

/** A response's body as a JSON batch carries it: JSON as JSON, text as a string, anything else base64url. */
function jsonBody(res: ODataResponse): string | undefined {
  if (res.body === undefined || res.status === 204) return undefined;
  const contentType = res.headers['Content-Type'];
  const type = mediaType(typeof contentType === 'string' ? contentType : undefined);
  const text = typeof res.body === 'string' ? res.body : undefined;
  if (type === 'application/json' || type?.endsWith('+json') === true) return text ?? res.body.toString('utf8');
  if (type?.startsWith('text/') === true) return JSON.stringify(text ?? res.body.toString('utf8'));
  return JSON.stringify((typeof res.body === 'string' ? Buffer.from(res.body, 'utf8') : res.body).toString('base64url'));
}

function jsonObject(result: PartResult, group: string | undefined): string {
  const { part, response } = result;
  const headers: Record<string, string> = {};
  for (const name in response.headers) {
    const v = response.headers[name];
    if (v !== undefined && name !== 'OData-Version') headers[name.toLowerCase()] = typeof v === 'string' ? v : v.join(', ');
  }
  let text = '{';
  if (part.id !== undefined) text += `"id":${JSON.stringify(part.id)},`;
  if (group !== undefined) text += `"atomicityGroup":${JSON.stringify(group)},`;
  text += `"status":${response.status},"headers":${JSON.stringify(headers)}`;
  // The body is JSON text already (the part's own response): it goes in as it is, not parsed again.
  const body = jsonBody(response);
  if (body !== undefined) text += `,"body":${body}`;
  return `${text}}`;
}

function jsonResponse(results: readonly UnitResult[], headers: Record<string, string>): ODataResponse {
  const objects = results.flatMap((unit) => (unit.kind === 'request' ? [jsonObject(unit.result, undefined)] : unit.results.map((r) => jsonObject(r, unit.group))));
  return { status: 200, headers: { 'Content-Type': 'application/json', 'OData-Version': '4.0', ...headers }, body: `{"responses":[${objects.join(',')}]}` };
}
