/**
 * The bound on what one change set writes (`limits.maxChangeSetEntities`): a change set is one
 * transaction, and on SQLite one synchronous stretch of the event loop, so its size is what others
 * wait for. Counted before anything runs: each request of the change set, and each entity nested in a
 * request's JSON body (a deep insert's children, at any depth). A change set past it is a 400 naming
 * the setting, and nothing of the batch runs.
 */
import { limitSetting } from '../edm/service-limits.js';
import { BatchFormatError } from '../errors/odata-error.js';
import { mediaType } from '../core/request-body.js';
import type { BatchPart, BatchRequest } from './batch-request.js';

/** The entities nested in a JSON value: each object inside an array, at any depth. */
function nestedEntities(value: unknown, inArray = false): number {
  if (Array.isArray(value)) {
    let n = 0;
    for (const v of value) n += nestedEntities(v, true);
    return n;
  }
  if (value === null || typeof value !== 'object') return 0;
  let n = inArray ? 1 : 0;
  for (const v of Object.values(value)) n += nestedEntities(v);
  return n;
}

/** The entities a request of a change set writes, as its body shows them: itself and its nested ones. */
export function partEntities(part: BatchPart): number {
  if (part.body === undefined || mediaType(part.headers['content-type']) !== 'application/json') return 1;
  const text = part.body.toString('utf8');
  if (!text.includes('[')) return 1;
  try {
    return 1 + nestedEntities(JSON.parse(text) as unknown);
  } catch {
    return 1; // the request itself answers the malformed JSON
  }
}

/** Throws the 400 for the first change set of the batch that writes more than `max` entities. */
export function checkChangeSetSizes(batch: BatchRequest, max: number): void {
  for (const unit of batch.units) {
    if (unit.kind !== 'changeSet') continue;
    let n = 0;
    for (const part of unit.parts) n += partEntities(part);
    if (n > max) {
      throw new BatchFormatError(
        `A change set writes at most ${max} entities, nested ones included (${limitSetting('maxChangeSetEntities')}); the change set '${unit.group}' writes ${n}. Split it into several change sets or batches.`,
      );
    }
  }
}
