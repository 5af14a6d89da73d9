/**
 * Name-based UUIDs (RFC 9562 §5.5, version 5: SHA-1 of a namespace UUID and a name): the same inputs
 * always give the same GUID, so ids derived this way are stable across restarts and databases.
 */
import { createHash } from 'node:crypto';

/** The version-5 UUID of `name` in the namespace `namespace` (a GUID), lower-case. */
export function nameUuid(namespace: string, name: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  if (ns.length !== 16) throw new Error(`nameUuid: '${namespace}' is not a GUID`);
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
