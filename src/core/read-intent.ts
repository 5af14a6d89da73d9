/**
 * Business Central's `Data-Access-Intent` header (conventions §13): `ReadOnly` on a GET lets a read
 * replica answer it; any other request, or a request without it, reads on the primary, so a client
 * reads its own writes unless it asked otherwise. Read once here from the request's headers; the
 * engine sees only the intent (db/engine.ts ReadIntent).
 */
import type { ReadIntent } from '../db/engine.js';

/** The header's name, lower-cased as requests carry it. */
export const DATA_ACCESS_INTENT = 'data-access-intent';

/** true when the header asks for read-only access (its value compared without regard to case or spaces). */
export function asksReadOnly(headers: Readonly<Record<string, string | undefined>>): boolean {
  return headers[DATA_ACCESS_INTENT]?.trim().toLowerCase() === 'readonly';
}

/** A method that only reads (HEAD answers as GET). */
export function isReadMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD';
}

/** The intent of a request on its own: `readOnly` for a GET with the header, else `primary`. */
export function readIntentOf(method: string, headers: Readonly<Record<string, string | undefined>>): ReadIntent {
  return isReadMethod(method) && asksReadOnly(headers) ? 'readOnly' : 'primary';
}

/** The intent of a `$batch` (its own headers, its parts' methods): `readOnly` when it has the header and every part is a GET. */
export function batchReadIntent(headers: Readonly<Record<string, string | undefined>>, methods: readonly string[]): ReadIntent {
  return asksReadOnly(headers) && methods.every(isReadMethod) ? 'readOnly' : 'primary';
}
