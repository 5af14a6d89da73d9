/**
 * Runs one hook phase (Fastify's hook runner, without callbacks). The synchronous phases check at run
 * time that the hook returned no thenable: TypeScript lets `async () => {}` fill a `() => void` member,
 * and awaiting inside a better-sqlite3 transaction would run the rest of the rule after COMMIT.
 */
import type { Logger } from 'pino';
import type { StoredValue } from '../edm/values.js';
import type { ActionContext, ActionHandler, AfterCommitContext, BeforeWriteContext, EntityHooks, Row, ValidateWriteContext } from './types.js';

/** A hook broke the interface contract (a programming error: the request answers 500). */
export class HookContractError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HookContractError';
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

function refuseThenable(value: unknown, what: string): void {
  if (!isThenable(value)) return;
  // The promise is abandoned; keep its rejection from becoming an unhandled one that kills the process.
  Promise.resolve(value).catch(() => undefined);
  throw new HookContractError(`${what} returned a promise; it runs inside the write transaction and must be synchronous (move async work to beforeWrite or afterCommit).`);
}

/** Runs `beforeWrite`; returns the (possibly changed) values to write. */
export async function runBeforeWrite(hooks: EntityHooks | undefined, ctx: Omit<BeforeWriteContext, 'changes'>, changes: ReadonlyMap<string, StoredValue>): Promise<Map<string, StoredValue>> {
  if (hooks?.beforeWrite === undefined) return new Map(changes);
  const full: BeforeWriteContext = { ...ctx, changes: Object.fromEntries(changes) };
  await hooks.beforeWrite(full);
  return new Map(Object.entries(full.changes));
}

/** Runs `validateWrite` synchronously; a returned thenable is a HookContractError. */
export function runValidateWrite(hooks: EntityHooks | undefined, ctx: ValidateWriteContext): void {
  if (hooks?.validateWrite === undefined) return;
  const result: unknown = hooks.validateWrite(ctx);
  refuseThenable(result, `validateWrite of ${hooks.entityType}`);
}

/** Runs a bound action synchronously; a returned thenable is a HookContractError. */
export function runAction(handler: ActionHandler, ctx: ActionContext): Row | undefined {
  const result: unknown = handler(ctx);
  refuseThenable(result, `the action ${ctx.entityType}.${ctx.action}`);
  return result as Row | undefined;
}

/** One committed write and the module that may want to hear about it. */
export interface CommittedWrite {
  readonly hooks: EntityHooks | undefined;
  readonly ctx: AfterCommitContext;
}

/** Runs `afterCommit` for each committed write, in write order; failures are logged and swallowed (the write stands). */
export async function runAfterCommit(writes: readonly CommittedWrite[], log: Logger): Promise<void> {
  for (const { hooks, ctx } of writes) {
    if (hooks?.afterCommit === undefined) continue;
    try {
      await hooks.afterCommit(ctx);
    } catch (err) {
      log.error({ err, correlationId: ctx.requestId, entityType: ctx.entityType, op: ctx.op }, 'afterCommit hook failed');
    }
  }
}
