/**
 * What the entity store needs of the running service, and no more: the model, the engine, the rule
 * hooks, the row-version clock, the log, and whom to tell after a commit. The pipeline, rules, events,
 * data import and batch all write through the store with it (the service context is one).
 */
import type { Logger } from 'pino';
import type { Engine } from '../db/engine.js';
import type { EdmModel } from '../edm/model.js';
import type { HookRegistry } from '../hooks/registry.js';

/** What a commit wrote that someone after it waits for: business events, or webhook subscriptions. */
export type CommittedChange = 'events' | 'subscriptions';

/** The store's view of the service. */
export interface StoreContext {
  readonly model: EdmModel;
  /** The database engine: its SQL dialect, statements and transactions (db/engine.ts). */
  readonly engine: Engine;
  /** The business-rule hook modules, checked against the model. */
  readonly hooks: HookRegistry;
  /** Next row version (strictly increasing). */
  readonly nextVersion: () => number;
  readonly log: Logger;
  /** Told after a commit that wrote events or subscriptions (the delivery worker listens). */
  readonly outboxSignal: { notify(change: CommittedChange): void };
}
