/**
 * The write path inside one transaction (anchors §2.4 step 4): every create, update and delete — the
 * request's own and those rules make through `ctx.tx` — runs the model's checks, then the type's
 * validateWrite hook, then the statement. The session collects the events rules emit (written to the
 * outbox before COMMIT) and the committed writes (handed to afterCommit hooks after it).
 */
import type { DbRow } from '../db/engine.js';
import type { Transaction } from '../db/engine.js';
import type { EntityType } from '../edm/model.js';
import type { StoredValue } from '../edm/values.js';
import type { Principal } from '../auth/principal.js';
import type { StoreContext } from './store-context.js';
import type { ParentRow, RowValues } from './write-checks.js';
import { insertRow, prepareInsert, writeInsert } from './insert-entity.js';
import { NumberReservations } from './number-series.js';
import { checkUpdate, mergeChanges, writeDelete, writeUpdate } from './update-entity.js';
import { enqueue, type OutboxEvent } from './outbox.js';
import { checkEmitted } from './emit-check.js';
import { runAction, runAfterCommit, runValidateWrite, type CommittedWrite } from '../hooks/run-hooks.js';
import { rowOf, rowOfValues, txReader, txWriter } from './tx-access.js';
import { validatesUpdate, type ActionHandler, type AfterCommitContext, type HookContext, type Row, type TxContext, type ValidateWriteContext } from '../hooks/types.js';

/** Who writes, where and when; the same for every write of the transaction. */
export interface WriteIdentity {
  readonly companyId: string | undefined;
  readonly principal: Principal;
  readonly requestId: string;
  readonly now: Date;
  /**
   * A bulk load (ecn-odata import): rows are inserted without their stored ETags (WriteStamp.bulk),
   * which start-up stores later.
   */
  readonly bulk?: boolean;
}

/** Deeper nesting of hook-made writes than this is a rule that keeps triggering itself. */
const MAX_HOOK_DEPTH = 200;

/** What validateWrite learns about the row, per op (the union kept apart, unlike a plain Omit). */
type WriteFacts = ValidateWriteContext extends infer C ? (C extends unknown ? Omit<C, keyof TxContext> : never) : never;

/** The properties of each row as it was first given to `create`. */
const sentKeys = new WeakMap<RowValues, ReadonlySet<string>>();

/**
 * Clears what an earlier run of the transaction filled into `row` (defaults, line and series numbers,
 * the row secret): an engine may run a transaction again (PostgreSQL, after a serialization failure),
 * and then those are drawn again. The caller still finds the values of the last run in `row`.
 */
function forThisRun(row: RowValues): void {
  const sent = sentKeys.get(row);
  if (sent === undefined) sentKeys.set(row, new Set(row.keys()));
  else for (const k of [...row.keys()]) if (!sent.has(k)) row.delete(k);
}

/** The writes of one transaction and what they raised. */
export class WriteSession {
  /** Events emitted by rules, in order. */
  readonly events: OutboxEvent[] = [];
  /** Writes done so far, in completion order (nested writes complete before the write that caused them). */
  readonly committed: CommittedWrite[] = [];
  private depth = 0;
  /** The reads and writes rules started through ctx.db and ctx.tx, awaited before their hook counts as done. */
  private readonly started: Promise<unknown>[] = [];
  /** The first failure among them: it fails the write even if the rule caught it (as a failed statement aborts a PostgreSQL transaction). */
  private failure: { error: unknown } | undefined;
  /** Number-series counters drawn from in this session, written back by `finish` before the COMMIT. */
  private readonly numbers = new NumberReservations();
  /** The hook context of each type written in this session (the same for every write of the type). */
  private readonly contexts = new Map<EntityType, TxContext>();

  /**
   * @param tx the statements of the transaction the session writes in
   * @param returnRows false when the caller does not use the rows `create` returns (bulk import): the
   *   stored row (computed properties included) is then returned only for a type with an afterCommit
   *   hook, and otherwise `create` returns the values written.
   */
  constructor(
    readonly svc: StoreContext,
    readonly identity: WriteIdentity,
    readonly tx: Transaction,
    private readonly returnRows = true,
  ) {}

  /**
   * Inserts a row: defaults and checks, validateWrite, INSERT. Returns the row as stored (see
   * `returnRows`). `parent`: the row it is created under, loaded in this transaction (see ParentRow).
   */
  async create(type: EntityType, row: RowValues, parent?: ParentRow): Promise<DbRow> {
    const { svc, identity, tx } = this;
    forThisRun(row);
    // With no validateWrite rule to see the row first, the INSERT checks its references (prepareInsert).
    const hooks = svc.hooks.forType(type);
    const stamp = { userId: identity.principal.userId, now: identity.now, numbers: this.numbers, ...(identity.bulk === true ? { bulk: true } : {}) };
    const guard = await prepareInsert(svc, tx, type, identity.companyId, row, stamp, parent, hooks?.validateWrite === undefined);
    const after = rowOfValues(type, row);
    await this.validate(type, { op: 'create', after });
    if (!this.returnRows && hooks?.afterCommit === undefined) {
      await insertRow(svc, tx, type, identity.companyId, row, guard);
      // Nothing hears about this write after commit unless it is a subscription (the delivery worker's signal).
      if (type.name === svc.model.eventTypes?.subscription.name) this.record(type, { op: 'create', after });
      return after as DbRow;
    }
    const stored = await writeInsert(svc, tx, type, identity.companyId, row, guard);
    this.record(type, { op: 'create', after: rowOf(type, stored) });
    return stored;
  }

  /** Ends the session's writes inside its transaction: writes back the number-series counters it advanced. */
  async finish(): Promise<void> {
    await this.numbers.flush(this.svc, this.tx);
  }

  /** Changes a loaded row: merge and checks, validateWrite, UPDATE. Returns the row as stored. */
  async update(type: EntityType, before: DbRow, changes: ReadonlyMap<string, StoredValue>): Promise<DbRow> {
    const { svc, identity, tx } = this;
    const key = before[type.key.name] as StoredValue;
    const changed = new Set(changes.keys());
    await checkUpdate(svc, tx, type, identity.companyId, mergeChanges(type, before, changes), changed, key);
    const old = rowOf(type, before);
    if (validatesUpdate(svc.hooks.forType(type), changed)) await this.validate(type, { op: 'update', before: old, after: { ...old, ...Object.fromEntries(changes) }, changed });
    const stored = await writeUpdate(svc, tx, type, identity.companyId, before, changes, identity.now);
    this.record(type, { op: 'update', before: old, after: rowOf(type, stored) });
    return stored;
  }

  /** Deletes a loaded row: validateWrite (which may delete dependants first), then DELETE. */
  async delete(type: EntityType, before: DbRow): Promise<void> {
    const old = rowOf(type, before);
    await this.validate(type, { op: 'delete', before: old });
    await writeDelete(this.svc, this.tx, type, before[type.key.name] as StoredValue);
    this.record(type, { op: 'delete', before: old });
  }

  /** Runs a bound action's handler on its loaded entity. */
  invoke(type: EntityType, action: string, handler: ActionHandler, entity: DbRow): Promise<Row | undefined> {
    return this.nested(type, () => runAction(handler, { ...this.txContext(type), action, entity: rowOf(type, entity) }));
  }

  /** Writes the events the session's rules emitted to the outbox (in its transaction), from the `from`th on. */
  async writeEvents(from = 0): Promise<void> {
    for (let i = from; i < this.events.length; i++) await enqueue(this.svc, this.tx, this.events[i] as OutboxEvent);
  }

  private hookContext(type: EntityType): HookContext {
    const { identity } = this;
    return { entityType: type.name, entitySet: type.entitySet, requestId: identity.requestId, user: identity.principal, companyId: identity.companyId };
  }

  private txContext(type: EntityType): TxContext {
    let context = this.contexts.get(type);
    if (context === undefined) {
      context = this.newTxContext(type);
      this.contexts.set(type, context);
    }
    return context;
  }

  private newTxContext(type: EntityType): TxContext {
    return {
      ...this.hookContext(type),
      db: txReader(this.svc, this.tx, this.identity.companyId, this.track),
      tx: txWriter(this, this.track),
      emit: (eventName, payload, eventVersion = '1.0') => {
        checkEmitted(this.svc.model, type.name, eventName, eventVersion, payload);
        const { companyId, principal, now } = this.identity;
        this.events.push({ companyId, eventName, eventVersion, payload: { ...payload }, userId: principal.userId, createdAt: now });
      },
    };
  }

  private async validate(type: EntityType, facts: WriteFacts): Promise<void> {
    const hooks = this.svc.hooks.forType(type);
    if (hooks?.validateWrite === undefined) return;
    await this.nested(type, () => runValidateWrite(hooks, { ...this.txContext(type), ...facts }));
  }

  private async nested<T>(type: EntityType, fn: () => Promise<T>): Promise<T> {
    if (this.depth >= MAX_HOOK_DEPTH) throw new Error(`Hook-made writes nested deeper than ${MAX_HOOK_DEPTH} levels (at ${type.name}); a rule keeps triggering itself.`);
    this.depth++;
    const from = this.started.length;
    try {
      const value = await fn();
      await this.settle(from);
      return value;
    } catch (e) {
      await this.settle(from).catch(() => undefined);
      throw e;
    } finally {
      this.depth--;
    }
  }

  /** Starts a rule's read or write and remembers it (see `started` and `failure`). */
  private readonly track = <T>(work: () => Promise<T>): Promise<T> => {
    const p = work();
    this.started.push(
      p.catch((error: unknown) => {
        this.failure ??= { error };
      }),
    );
    return p;
  };

  /** Waits for the calls rules started since `from` (one not awaited finishes inside the transaction) and rethrows the first failure. */
  private async settle(from: number): Promise<void> {
    while (this.started.length > from) await this.started.pop();
    if (this.failure !== undefined) throw this.failure.error;
  }

  private record(type: EntityType, facts: Pick<AfterCommitContext, 'op' | 'before' | 'after'>): void {
    this.committed.push({ hooks: this.svc.hooks.forType(type), ctx: { ...this.hookContext(type), ...facts } });
  }
}

/**
 * Runs `body` in one transaction of the engine (on SQLite shared with the writes of other requests of
 * the same event-loop turn, each in its own savepoint) with a write session, writes the emitted events
 * to the outbox before COMMIT, then signals the delivery worker (when events or webhook subscriptions
 * were written) and runs the afterCommit hooks (their failures are logged, not returned).
 */
export async function inWriteTransaction<T>(svc: StoreContext, identity: WriteIdentity, body: (session: WriteSession) => Promise<T>): Promise<T> {
  let session: WriteSession | undefined;
  const result = await svc.engine.transaction(async (tx) => {
    session = new WriteSession(svc, identity, tx);
    const value = await body(session);
    await session.finish();
    await session.writeEvents();
    return value;
  });
  await afterCommit(svc, session === undefined ? [] : [session]);
  return result;
}

/** Signals the delivery worker (when events or webhook subscriptions were written) and runs the sessions' afterCommit hooks. */
async function afterCommit(svc: StoreContext, sessions: readonly WriteSession[]): Promise<void> {
  if (sessions.some((s) => s.events.length > 0)) svc.outboxSignal.notify('events');
  const subscriptions = svc.model.eventTypes?.subscription.name;
  if (sessions.some((s) => s.committed.some((w) => w.ctx.entityType === subscriptions))) svc.outboxSignal.notify('subscriptions');
  for (const s of sessions) await runAfterCommit(s.committed, svc.log);
}

/** How one item of a write batch ended. */
export type BatchOutcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

/** The first item of a batch run without savepoints threw: the batch was rolled back and is run again item by item. */
class RetryItemByItem extends Error {}

/**
 * Runs `body` once per item in one transaction, each item with its own write session (the same
 * checks, hooks and outbox as a request's write), for bulk loads: one COMMIT for the batch is what
 * makes them fast. With `atomic`, the first item that throws rolls back the whole batch and the
 * promise rejects with BatchItemError; otherwise a throwing item is rolled back alone and reported in
 * its outcome, and the others commit. afterCommit hooks run for the committed items.
 *
 * A savepoint per item costs two statements per row (about an eighth of an imported row's time), so
 * the batch first runs without them; only when an item throws is it rolled back and run again with a
 * savepoint per item (the outcome is the same, refused rows are rare in a bulk load). `returnRows`:
 * see WriteSession (false for an import, which does not use the stored rows).
 */
export async function inWriteBatch<I, T>(
  svc: StoreContext,
  identity: WriteIdentity,
  items: readonly I[],
  body: (session: WriteSession, item: I) => Promise<T>,
  atomic = false,
  returnRows = true,
): Promise<BatchOutcome<T>[]> {
  let sessions: WriteSession[] = [];
  const run = async (tx: Transaction, savepoints: boolean): Promise<BatchOutcome<T>[]> => {
    // The engine may run the transaction again (a batch that lost to another writer): only the sessions of the run that commits count.
    sessions = [];
    // Without savepoints any throw replays the batch, so one session can hold all of its writes.
    const shared = savepoints ? undefined : new WriteSession(svc, identity, tx, returnRows);
    if (shared !== undefined) sessions.push(shared);
    const outcomes: BatchOutcome<T>[] = [];
    for (const [index, item] of items.entries()) {
      const session = shared ?? new WriteSession(svc, identity, tx, returnRows);
      const emitted = session.events.length;
      const write = async (): Promise<T> => {
        const result = await body(session, item);
        // The shared session writes its counters back once, after the batch (below).
        if (shared === undefined) await session.finish();
        await session.writeEvents(emitted);
        return result;
      };
      try {
        const value = savepoints ? await tx.savepoint(write) : await write();
        if (shared === undefined) sessions.push(session);
        outcomes.push({ ok: true, value });
      } catch (error) {
        if (atomic) throw new BatchItemError(index, error);
        if (!savepoints) throw new RetryItemByItem();
        outcomes.push({ ok: false, error });
      }
    }
    await shared?.finish();
    return outcomes;
  };
  let outcomes: BatchOutcome<T>[];
  try {
    outcomes = await svc.engine.transaction((tx) => run(tx, false));
  } catch (e) {
    if (!(e instanceof RetryItemByItem)) throw e;
    outcomes = await svc.engine.transaction((tx) => run(tx, true));
  }
  await afterCommit(svc, sessions);
  return outcomes;
}

/** The item of an atomic write batch that threw, and what it threw; the whole batch was rolled back. */
export class BatchItemError extends Error {
  constructor(
    readonly index: number,
    readonly error: unknown,
  ) {
    super(`item ${index} of the batch failed: ${error instanceof Error ? error.message : String(error)}`);
    this.name = 'BatchItemError';
  }
}

/** One write of a transaction shared by several (a change set's parts), with its own identity. */
export interface WriteJob {
  readonly identity: WriteIdentity;
  readonly body: (session: WriteSession) => Promise<unknown>;
}

/**
 * Runs several write bodies in ONE transaction, in order, each with its own write session (its
 * identity, its events, its afterCommit hooks): a `$batch` change set, whose parts may each name
 * another company (unlike inWriteBatch's items, which share one identity). All commit, or the first
 * that throws rolls all of them back and the promise rejects with TransactionPartError; each writes
 * its events to the outbox in the transaction, so they leave only if it commits, and its
 * number-series counters back before the next body runs, so the next one reads them advanced. The
 * transaction is the engine's transaction in parts (Engine.transactionInParts): on SQLite one job of
 * the turn's group commit (its own savepoint), like a request's write; on PostgreSQL a job of the
 * write batches whose parts are pipelined as the batch's jobs are.
 */
export async function inOneWriteTransaction(svc: StoreContext, jobs: readonly WriteJob[]): Promise<unknown[]> {
  // The engine may run the transaction again (a batch that lost to another writer): each run of a part makes its session anew.
  const sessions: WriteSession[] = [];
  const results = await svc.engine.transactionInParts(
    jobs.map((job, i) => async (tx) => {
      const session = new WriteSession(svc, job.identity, tx);
      sessions[i] = session;
      const value = await job.body(session);
      await session.finish();
      await session.writeEvents();
      return value;
    }),
  );
  await afterCommit(svc, sessions);
  return results;
}
