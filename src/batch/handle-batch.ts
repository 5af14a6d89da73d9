/**
 * `POST {base}/$batch` (OData 4.0 Part 1 §11.7; OData 4.01 JSON Format §19; conventions §8): reads a
 * multipart/mixed or JSON batch, checks all of it before anything runs (a malformed batch is a 400 and
 * changes nothing), runs it (batch-run.ts) and answers 200 with one response per request, in the
 * format the Accept header asks for (else the request's). The batch is authenticated once; its parts
 * run with its principal.
 */
import { checkChangeSetSizes } from './change-set-size.js';
import type { ODataRequest, ODataResponse } from '../core/request.js';
import type { PartHandler, ServiceContext } from '../core/service-context.js';
import { BatchFormatError, MethodNotAllowedError, NotAcceptableError, UnsupportedMediaTypeError } from '../errors/odata-error.js';
import { limitSetting } from '../edm/service-limits.js';
import { mediaType } from '../core/request-body.js';
import { parseMediaRanges } from '../core/format.js';
import { parsePrefer } from '../uri/parse-prefer.js';
import type { BatchFormat } from './batch-request.js';
import { parseMultipartBatch } from './parse-multipart-batch.js';
import { parseJsonBatch } from './parse-json-batch.js';
import { checkBatch } from './check-batch.js';
import { BatchRun } from './batch-run.js';
import { writeBatchResponse } from './write-batch-response.js';

/** The format of the batch body, from its Content-Type (415 for any other). */
function requestFormat(contentType: string | undefined): BatchFormat {
  const type = mediaType(contentType);
  if (type === 'multipart/mixed') return 'multipart';
  if (type === 'application/json') return 'json';
  throw new UnsupportedMediaTypeError(
    `A batch is sent as multipart/mixed (with a boundary) or application/json (OData Protocol §11.7.1); the request sent '${contentType ?? '(no Content-Type)'}'.`,
  );
}

/** The format of the batch response: the one the Accept header prefers, else the request's (Protocol §11.7.1). */
function responseFormat(accept: string | undefined, sent: BatchFormat): BatchFormat {
  if (accept === undefined || accept.trim() === '') return sent;
  const ranges = parseMediaRanges(accept).sort((a, b) => b.q - a.q);
  for (const r of ranges) {
    if (r.type === 'multipart/mixed' || r.type === 'multipart/*') return 'multipart';
    if (r.type === 'application/json' || r.type === 'application/*') return 'json';
    if (r.type === '*/*') return sent;
  }
  throw new NotAcceptableError(`A batch response is multipart/mixed or application/json; the request accepts only ${accept}.`);
}

/** Runs a batch request; each part goes through `handlePart` (which knows the batch's principal). */
export async function handleBatch(svc: ServiceContext, req: ODataRequest, handlePart: PartHandler): Promise<ODataResponse> {
  if (req.method !== 'POST') throw new MethodNotAllowedError(`'${req.method}' requests for $batch are not allowed; send the batch with POST.`, ['POST']);
  for (const option of req.rawQuery.split('&')) {
    if (option.startsWith('$') || option.startsWith('%24')) throw new BatchFormatError(`$batch takes no system query option ('${option.split('=')[0] ?? ''}'); put query options on the requests inside it.`);
  }
  const sent = requestFormat(req.headers['content-type']);
  const answer = responseFormat(req.headers['accept'], sent);
  const limits = svc.model.service;
  const tooMany = (): BatchFormatError => new BatchFormatError(`The batch has more than ${limits.maxBatchParts} requests (${limitSetting('maxBatchParts')}); send them in several batches.`);
  const batch = sent === 'multipart' ? parseMultipartBatch(req.body, req.headers['content-type'] ?? '', limits.maxBatchParts, tooMany) : parseJsonBatch(req, limits.maxJsonDepth, limits.maxBatchParts, tooMany);
  const base = { serviceRootUrl: req.serviceRootUrl, rootPath: limits.serviceRoot };
  checkBatch(batch, base, req.headers);
  checkChangeSetSizes(batch, limits.maxChangeSetEntities);
  const preference = req.headers['prefer'] === undefined ? undefined : parsePrefer(req.headers['prefer']).preferences.continueOnError;
  // Multipart stops at the first failure unless asked to go on (Protocol §11.7.7.3); a JSON batch runs
  // every request whose dependencies succeeded unless asked to stop (JSON Format §19.4).
  const continueOnError = preference ?? sent === 'json';
  const run = new BatchRun(svc, req, base, handlePart, continueOnError);
  const results = await run.run(batch);
  return writeBatchResponse(results, answer, preference === undefined ? {} : { 'Preference-Applied': `odata.continue-on-error=${String(preference)}` });
}
