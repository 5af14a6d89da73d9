/**
 * A PATCH or PUT as one statement, `UPDATE ... WHERE <the path's key> [AND _version = <If-Match>]
 * RETURNING ...`, where nothing needs the row before the write: the write path otherwise reads it first
 * (for the rules, the checks and the If-Match comparison), and on PostgreSQL every statement of a write
 * is a round trip inside the write turn, which the writes of every instance wait for. It applies when:
 * - no rule looks at the properties set (EntityHooks.validatesOnUpdate), and the type has no
 *   afterCommit hook (which is given the row before) and is not the webhook subscriptions' type;
 * - none of them is the key, a reference (a navigation's join column), a unique or alternate-key
 *   value, or a required property set to null (those checks read, or answer 400, as before);
 * - If-Match is `*` or one ETag of this service, and there is no If-None-Match;
 * - the path addresses one row by key without a step before it to look up, the type writes no row
 *   scope and its write returns its row (query/plan-returning.ts).
 * When the UPDATE writes nothing (no such row, another version), the usual path runs and answers 404
 * or 412 as before; nothing was written.
 */
import type { EntityType } from '../edm/model.js';
import type { StoredValue } from '../edm/values.js';
import { validatesUpdate } from '../hooks/types.js';
import { writeReturnsRow } from '../query/plan-returning.js';
import { versionOfEtag } from '../edm/etag.js';
import type { Statements } from '../db/engine.js';
import type { DbRow } from '../db/engine.js';
import type { PathStep } from '../uri/bound-path.js';
import type { StoreContext } from './store-context.js';
import { writeUpdateWhere } from './update-entity.js';

/** An update that can be one statement, and the version its If-Match names (undefined for `*`). */
export interface OneStatementUpdate {
  readonly version: number | undefined;
}

/** true when a change of `name` needs no look-up or rule before it is written. */
function plainChange(type: EntityType, name: string, value: StoredValue): boolean {
  const p = type.propertyByName.get(name);
  if (p === undefined || p === type.key || p.storage.kind !== 'column' || p.unique) return false;
  if (value === null && !p.nullable) return false;
  if (type.alternateKeys.some((k) => k.includes(p))) return false;
  return !type.navigations.some((n) => n.joins.some((j) => j.sourceProperty === name));
}

/** The plan of a one-statement update, or undefined when the update must read the row first (see the file comment). */
export function oneStatementUpdate(
  svc: StoreContext,
  type: EntityType,
  steps: readonly PathStep[],
  preconditions: { readonly ifMatch: string | undefined; readonly ifNoneMatch: string | undefined },
  body: Record<string, unknown>,
  changes: ReadonlyMap<string, StoredValue>,
): OneStatementUpdate | undefined {
  if (steps.length !== 1 || steps[0]?.key === undefined || type.rowScope !== undefined || !writeReturnsRow(type)) return undefined;
  const hooks = svc.hooks.forType(type);
  if (hooks?.afterCommit !== undefined || validatesUpdate(hooks, changes.keys()) || type.name === svc.model.eventTypes?.subscription.name) return undefined;
  if (body[type.key.name] !== undefined) return undefined;
  for (const [name, value] of changes) if (!plainChange(type, name, value)) return undefined;
  const { ifMatch, ifNoneMatch } = preconditions;
  if (ifNoneMatch !== undefined || ifMatch === undefined) return undefined;
  if (ifMatch === '*') return { version: undefined };
  const version = versionOfEtag(ifMatch);
  return version === undefined ? undefined : { version };
}

/** Runs the one-statement update in `tx`; the row as stored and the path's keys, or undefined when it wrote nothing. */
export async function updateInOneStatement(
  svc: StoreContext,
  tx: Statements,
  steps: readonly PathStep[],
  companyId: string | undefined,
  type: EntityType,
  changes: ReadonlyMap<string, StoredValue>,
  now: Date,
  plan: OneStatementUpdate,
): Promise<{ row: DbRow; keys: StoredValue[] } | undefined> {
  const step = steps[0];
  if (step?.key === undefined) throw new Error('a one-statement update without a key');
  const conditions = (step.keyConditions ?? []).map((c) => ({ property: c.property, value: c.value }));
  const row = await writeUpdateWhere(svc, tx, type, companyId, conditions, changes, now, plan.version);
  return row === undefined ? undefined : { row, keys: [step.key] };
}
