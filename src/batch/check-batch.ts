/**
 * The checks of a parsed batch that do not depend on its format, made before any of it runs, so that
 * a malformed batch changes nothing (OData 4.0 Part 1 §11.7; JSON Format §19.1): request ids unique
 * (and not the name of an atomicity group), references (`$<id>` in URLs, If-Match, bindings) and `dependsOn`
 * only to requests before, every URL under the service root, no other credentials in a part than
 * the batch's (a part runs with the batch's; Protocol §11.7.7.1 forbids credentials in parts, but
 * OpenUI5 copies its model's headers, Authorization included, into each part, so the same value is
 * let through), no GET inside a change set.
 */
import { BatchFormatError } from '../errors/odata-error.js';
import { referencedEtagId, type BatchPart, type BatchRequest } from './batch-request.js';
import { shorten } from './multipart.js';
import { bodyReferences } from './body-references.js';
import { partTarget, type BatchBase } from './part-url.js';

/** Headers a part must not carry: the batch's credentials are the part's. */
const CREDENTIAL_HEADERS: readonly string[] = ['authorization', 'proxy-authorization'];

/** Throws a BatchFormatError for the first problem found; `credentials` are the batch request's headers. */
export function checkBatch(batch: BatchRequest, base: BatchBase, credentials: Readonly<Record<string, string | undefined>>): void {
  const seen = new Set<string>();
  const groups = new Set<string>();
  if (batch.format === 'json') {
    for (const u of batch.units) if (u.kind === 'changeSet') groups.add(u.group);
  }
  const before = new Set<string>();
  for (const unit of batch.units) {
    const parts = unit.kind === 'request' ? [unit.part] : unit.parts;
    for (const part of parts) {
      const Label = `${part.label.charAt(0).toUpperCase()}${part.label.slice(1)}`;
      if (part.id !== undefined) {
        if (seen.has(part.id)) throw new BatchFormatError(`${Label} repeats the request id '${shorten(part.id)}'; ids must be unique in a batch.`);
        if (groups.has(part.id)) throw new BatchFormatError(`${Label} has the id '${shorten(part.id)}', which also names an atomicity group.`);
        seen.add(part.id);
      }
      for (const h of CREDENTIAL_HEADERS) {
        if (part.headers[h] !== undefined && part.headers[h] !== credentials[h]) {
          throw new BatchFormatError(`${Label} carries other credentials (its own ${h === 'authorization' ? 'Authorization' : 'Proxy-Authorization'} header) than the batch request; every part runs with the credentials of the batch, so send them there only.`);
        }
      }
      if (unit.kind === 'changeSet' && (part.method === 'GET' || part.method === 'HEAD')) {
        throw new BatchFormatError(`${Label} is a ${part.method} inside a change set; a change set holds only changes and actions (put the read before or after it).`);
      }
      const known = (id: string): string | { error: string } => (before.has(id) ? 'x' : { error: `no request before it has the id '${shorten(id)}'.` });
      partTarget(part.url, base, part.label, known);
      for (const h of ['if-match', 'if-none-match']) {
        const ref = referencedEtagId(part.headers[h]);
        if (ref !== undefined && !before.has(ref)) throw new BatchFormatError(`The ${h === 'if-match' ? 'If-Match' : 'If-None-Match'} of ${part.label} refers to $${ref}, but no request before it has that id.`);
      }
      for (const ref of bodyReferences(part)) {
        if (!before.has(ref)) throw new BatchFormatError(`The body of ${part.label} binds to $${ref}, but no request before it has that id.`);
      }
      for (const d of part.dependsOn) {
        if (!before.has(d) && !(groups.has(d) && closedBefore(batch, d, part))) {
          throw new BatchFormatError(`${Label} depends on '${shorten(d)}', which is no request or atomicity group before it.`);
        }
      }
      if (part.id !== undefined) before.add(part.id);
    }
  }
}

/** true when the atomicity group `group` ends before the request `part`. */
function closedBefore(batch: BatchRequest, group: string, part: BatchPart): boolean {
  for (const unit of batch.units) {
    const parts = unit.kind === 'request' ? [unit.part] : unit.parts;
    if (parts.includes(part)) return false;
    if (unit.kind === 'changeSet' && unit.group === group) return true;
  }
  return false;
}
