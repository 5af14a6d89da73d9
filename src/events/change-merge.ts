/**
 * How changes of one entity within one window merge into one entry (conventions §12): created then
 * updated is created; created then deleted is nothing; updated then deleted is deleted; deleted then
 * created again is updated (the entity exists, changed). Pure.
 */
import { assertNever } from '../util/assert-never.js';

/** What happened to an entity, as the capture triggers record it. */
export type CapturedChange = 'created' | 'updated' | 'deleted';

/** The entry after `next` follows `previous` (undefined: no entry so far, or none left). */
export function mergeChange(previous: CapturedChange | undefined, next: CapturedChange): CapturedChange | undefined {
  if (previous === undefined) return next;
  switch (previous) {
    case 'created':
      return next === 'deleted' ? undefined : 'created';
    case 'updated':
      return next === 'deleted' ? 'deleted' : 'updated';
    case 'deleted':
      return next === 'deleted' ? 'deleted' : 'updated';
    default:
      return assertNever(previous, 'change');
  }
}

