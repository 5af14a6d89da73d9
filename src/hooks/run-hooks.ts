/**
 * Runs one hook phase (Fastify's hook runner, without callbacks). validateWrite and actions run inside
 * the write transaction and may be async: they await what `ctx.db` and `ctx.tx` give them (the
 * engine's statements in the transaction), and nothing else that waits (call-outs belong in
 * beforeWrite or afterCommit: a transaction held open across a network call holds every writer).
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

/** Runs `beforeWrite`; returns the (possibly changed) values to write. */
export async function runBeforeWrite(hooks: EntityHooks | undefined, ctx: Omit<BeforeWriteContext, 'changes'>, changes: ReadonlyMap<string, StoredValue>): Promise<Map<string, StoredValue>> {
  if (hooks?.beforeWrite === undefined) return new Map(changes);
  const full: BeforeWriteContext = { ...ctx, changes: Object.fromEntries(changes) };
  await hooks.beforeWrite(full);
  return new Map(Object.entries(full.changes));
}

/** Runs `validateWrite` in the write transaction. */
export async function runValidateWrite(hooks: EntityHooks | undefined, ctx: ValidateWriteContext): Promise<void> {
  if (hooks?.validateWrite === undefined) return;
  await hooks.validateWrite(ctx);
}

/** Runs a bound action in the write transaction; its row, if it gives one. */
export async function runAction(handler: ActionHandler, ctx: ActionContext): Promise<Row | undefined> {
  return (await handler(ctx)) ?? undefined;
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
