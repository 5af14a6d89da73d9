/**
 * The rule-author API (anchors §2.4–2.5): one `EntityHooks` object per entity type, listed in
 * `src/rules/index.ts`. Four phases, a closed set checked at start-up by `registry.ts`:
 * - `beforeWrite`: async, outside the transaction; may normalise `changes`, call out (through
 *   `ctx.services.outbound`), refuse;
 * - `validateWrite`: inside the write transaction, async: awaits reads of `ctx.db` and writes of `ctx.tx`
 *   (the same on every database engine: SQLite answers at once, PostgreSQL later), refuses by throwing
 *   `BusinessRuleError`, raises events with `ctx.emit`; it awaits nothing else (a call-out would hold
 *   the transaction, and every writer, while it waits: those belong in beforeWrite or afterCommit);
 * - `afterCommit`: async, after COMMIT; cannot undo the write, its failures are only logged;
 * - `actions`: implementations of the type's bound actions, run inside a transaction like validateWrite.
 * Rows are in stored form: property names as in the model, enums as encoded member names
 * ('Not_x0020_Started'), GUIDs lower-case, booleans 0/1; media fields only in the `after` of a write
 * that sets them (media PUT).
 */
import type { Principal } from '../auth/principal.js';
import type { StoredValue } from '../edm/values.js';
import type { EdmModel } from '../edm/model.js';
import type { OutboundHttp } from '../events/outbound.js';

/** An entity row in stored form (stored and computed properties; media fields only when being written). */
export type Row = Readonly<Record<string, unknown>>;

/** Values to write, by property name, in stored form. */
export type RowChanges = Readonly<Record<string, StoredValue>>;

/** What a write does to its row. */
export type WriteOp = 'create' | 'update' | 'delete';

/** What every hook knows about its call. */
export interface HookContext {
  /** The entity type name as in the model (`engChangeOrderTask`). */
  readonly entityType: string;
  readonly entitySet: string;
  /** Correlation id of the request (the one the logs and 500 messages carry). */
  readonly requestId: string;
  readonly user: Principal;
  /** The request's company; undefined for global types. Every read and write below stays in it. */
  readonly companyId: string | undefined;
}

/** What the framework lends to hooks that consult the model or call out. */
export interface HookServices {
  readonly model: EdmModel;
  /** Outbound HTTP under the operator's policy: public targets only unless allowed, time limits, no redirects. */
  readonly outbound: OutboundHttp;
  /** Time limit of a call-out the client waits for (the webhook validation handshake), ms. */
  readonly callTimeoutMs: number;
}

/** The context of `beforeWrite` (async, no transaction open). */
export interface BeforeWriteContext extends HookContext {
  readonly services: HookServices;
  readonly op: WriteOp;
  /** Key named by the URL's last segment; undefined for create and for single-valued navigations. */
  readonly key: string | undefined;
  /** The body's values, schema-valid and in stored form; a hook may change them (delete: empty). */
  changes: Record<string, StoredValue>;
}

/** Reads inside the transaction (awaited), restricted to the request's company. */
export interface TxReader {
  /** One row by key, or undefined. `T` is the caller's claim about the row's shape (not checked). */
  get<T extends Row = Row>(entityType: string, key: StoredValue): Promise<T | undefined>;
  /** Every row whose columns equal the given values, in key order. */
  find<T extends Row = Row>(entityType: string, where: RowChanges): Promise<T[]>;
}

/**
 * Further writes inside the same transaction. Each goes through the generic write path: defaults,
 * stamps, row version, required/reference/uniqueness checks, and the target type's own validateWrite.
 * Body validation (writability, types) is the client's gate and is not applied to rules.
 * Await each call. One that is not awaited still finishes before the hook counts as done, and a call
 * that fails fails the whole write even if the rule catches the error (as a failed statement aborts a
 * PostgreSQL transaction): check with `ctx.db` first instead of catching.
 */
export interface TxWriter {
  /** Inserts a row and returns it as stored. */
  create<T extends Row = Row>(entityType: string, values: RowChanges): Promise<T>;
  /** Changes a row; rejects with 404 Internal_RecordNotFound when it does not exist. */
  update<T extends Row = Row>(entityType: string, key: StoredValue, changes: RowChanges): Promise<T>;
  /** Deletes a row (its contained children go with it); false when it was already gone. */
  delete(entityType: string, key: StoredValue): Promise<boolean>;
}

/** What a hook inside the transaction can use. */
export interface TxContext extends HookContext {
  readonly db: TxReader;
  readonly tx: TxWriter;
  /**
   * Records a business event; it is written to the outbox in this transaction, delivered after commit.
   * The event (name and version, default '1.0') must be declared in metadata/events with exactly these
   * payload fields, else HookContractError.
   */
  emit(eventName: string, payload: Row, eventVersion?: string): void;
}

/** The context of `validateWrite`; `op` narrows what is known about the row. */
export type ValidateWriteContext<T extends Row = Row> =
  | (TxContext & { readonly op: 'create'; readonly after: T })
  | (TxContext & {
      readonly op: 'update';
      readonly before: T;
      /** `before` merged with the changes (computed fields are still those of `before`). */
      readonly after: T;
      /** Names of the properties the write sets (whether or not the value differs from `before`). */
      readonly changed: ReadonlySet<string>;
    })
  | (TxContext & { readonly op: 'delete'; readonly before: T });

/** The context of `afterCommit`. */
export interface AfterCommitContext<T extends Row = Row> extends HookContext {
  readonly op: WriteOp;
  readonly before?: T;
  readonly after?: T;
}

/** The context of a bound action: the entity it is bound to, loaded (and If-Match checked) by the framework. */
export interface ActionContext<T extends Row = Row> extends TxContext {
  readonly action: string;
  readonly entity: T;
}

/** A bound action's implementation; returns a row of the declared return type (or undefined when none is declared). */
export type ActionHandler<T extends Row = Row> = (ctx: ActionContext<T>) => Row | undefined | Promise<Row | undefined>;

/** The hook module of one entity type. */
export interface EntityHooks<T extends Row = Row> {
  /** The entity type name, checked against the model at start-up. */
  readonly entityType: string;
  /** Async, before the transaction. */
  beforeWrite?(ctx: BeforeWriteContext): void | Promise<void>;
  /** Inside the transaction; throw (or reject) to refuse. */
  validateWrite?(ctx: ValidateWriteContext<T>): void | Promise<void>;
  /**
   * The properties whose change `validateWrite` looks at on an update (as BC's OnValidate triggers
   * belong to fields). An update that sets none of them does not run it, so the service need not read
   * the row first: a PATCH of other properties is then one conditional UPDATE (store/one-statement-update.ts).
   * Omitted: validateWrite runs on every update. Checked against the model at start-up.
   */
  readonly validatesOnUpdate?: readonly string[];
  /** Async, after COMMIT; errors are logged, never returned to the client. */
  afterCommit?(ctx: AfterCommitContext<T>): void | Promise<void>;
  /** Bound actions by name, each declared on this type in the model. */
  readonly actions?: Readonly<Record<string, ActionHandler<T>>>;
}

/** The names a hook module may have, besides `entityType` (Fastify's closed hook list). */
export const HOOK_NAMES = ['beforeWrite', 'validateWrite', 'validatesOnUpdate', 'afterCommit', 'actions'] as const;

/** true when `validateWrite` of `hooks` runs for an update that sets `changed` (see validatesOnUpdate). */
export function validatesUpdate(hooks: EntityHooks | undefined, changed: Iterable<string>): boolean {
  if (hooks?.validateWrite === undefined) return false;
  const fields = hooks.validatesOnUpdate;
  if (fields === undefined) return true;
  for (const name of changed) if (fields.includes(name)) return true;
  return false;
}

/**
 * Declares a hook module with typed rows. The registry holds modules as `EntityHooks<Row>`; `T` only
 * documents the rule's view of its rows, so widening it here is safe.
 */
export function defineHooks<T extends Row>(hooks: EntityHooks<T>): EntityHooks {
  return hooks as unknown as EntityHooks;
}
