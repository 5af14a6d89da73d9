/**
 * How an operation runs its reads and its write transaction. The operations are written in three
 * phases: prepare (parse, validate, beforeWrite hooks: async, no transaction), execute (the
 * transaction body, awaiting only the engine's statements in it) and respond. A request on its own hands its reads to the service's
 * read executor and its transaction body to a transaction of its own (shared with the turn's group
 * commit); a request inside a `$batch` gets the batch's runners instead: its reads join the batch's
 * read run (one snapshot for the GETs that follow one another), its body joins its change set's
 * transaction (one transaction for every part of the change set).
 */
import type { EntityType } from '../edm/model.js';
import type { StoredValue } from '../edm/values.js';
import type { ReadIntent, ReadRequest } from '../db/engine.js';
import type { StepResult } from '../db/read-steps.js';
import { inWriteTransaction, type WriteIdentity, type WriteSession } from '../store/write-session.js';
import type { ServiceContext } from './service-context.js';

/** Runs a read's statements (the service's ReadExecutor is one). */
export interface ReadRunner {
  run(read: ReadRequest): StepResult[] | Promise<StepResult[]>;
}

/** The entity a create will make: what a later part of a change set addresses as `$<Content-ID>`. */
export interface CreatedEntity {
  readonly type: EntityType;
  /** Its key, when known before the transaction (see WriteRunner.keysFirst). */
  readonly key: StoredValue | undefined;
}

/** Runs the execute phase of a write operation. */
export interface WriteRunner {
  /**
   * true inside a change set: a create gives its entity the generated key before the transaction, so
   * that later parts can address it (`$1/engChangeNoticeComments`) while they are prepared.
   */
  readonly keysFirst: boolean;
  /** Runs `body` in a write transaction; settles after COMMIT (or the rollback). */
  run<T>(svc: ServiceContext, identity: WriteIdentity, body: (session: WriteSession) => Promise<T>, created?: CreatedEntity): Promise<T>;
}

/** A request on its own: its own transaction, in the turn's group commit. */
export const OWN_TRANSACTION: WriteRunner = {
  keysFirst: false,
  run: (svc, identity, body) => inWriteTransaction(svc, identity, body),
};

/** The runners an operation uses. */
export interface OperationRunners {
  readonly reads: ReadRunner;
  readonly writes: WriteRunner;
  /** The request is a part of a `$batch`. */
  readonly inBatch: boolean;
  /**
   * The bytes its response body may take: limits.maxResponseBytes for a request alone; in a batch,
   * its share of what the batch's answer has left (the parts' bodies are held together).
   */
  readonly responseBytes: number;
}

/** The runners of a request on its own; its reads where `intent` lets them run (core/read-intent.ts). */
export function ownRunners(svc: ServiceContext, intent: ReadIntent = 'primary'): OperationRunners {
  return { reads: svc.engine.readsFor(intent), writes: OWN_TRANSACTION, inBatch: false, responseBytes: svc.model.service.maxResponseBytes };
}
