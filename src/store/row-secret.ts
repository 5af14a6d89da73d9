/**
 * Per-row secrets (model `secret`): generated on insert into a hidden column that no read selects,
 * shown once as an instance annotation of the POST response (OData JSON Format §20), and read back only
 * by the framework (the webhook signer). Standard Webhooks' format: `whsec_` + base64 of random bytes.
 */
import { randomBytes } from 'node:crypto';
import { HIDDEN_COLUMNS, type EdmModel, type EntityType, type RowSecret } from '../edm/model.js';
import type { StoredValue } from '../edm/values.js';
import type { RowValues } from './write-checks.js';

/** A new secret: the prefix and the base64 text of `bytes` random bytes. */
export function newRowSecret(secret: RowSecret): string {
  return `${secret.prefix}${randomBytes(secret.bytes).toString('base64')}`;
}

/** Sets a new secret on a row being inserted when its type declares one. */
export function assignRowSecret(type: EntityType, row: RowValues): void {
  if (type.secret !== undefined && !row.has(HIDDEN_COLUMNS.secret)) row.set(HIDDEN_COLUMNS.secret, newRowSecret(type.secret));
}

/** The secret set on a row being inserted (after the insert, for the response), if any. */
export function assignedRowSecret(row: ReadonlyMap<string, StoredValue>): string | undefined {
  const value = row.get(HIDDEN_COLUMNS.secret);
  return typeof value === 'string' ? value : undefined;
}

/** The name of the instance annotation that carries the secret: `@<namespace>.secret`. */
export function secretAnnotation(model: EdmModel): string {
  return `@${model.service.namespace}.secret`;
}

/**
 * An entity's JSON with the secret annotation added after its control information (`@odata.*`) and
 * before its properties, where instance annotations of the entity belong.
 */
export function withSecretAnnotation(entity: Record<string, unknown>, name: string, secret: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let placed = false;
  for (const [key, value] of Object.entries(entity)) {
    if (!placed && !key.startsWith('@')) {
      out[name] = secret;
      placed = true;
    }
    out[key] = value;
  }
  if (!placed) out[name] = secret;
  return out;
}
