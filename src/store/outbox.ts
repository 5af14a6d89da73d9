/**
 * The transactional outbox (conventions §6, STYLE habit 8): business events are rows of the hidden
 * table `_outbox`, written in the same transaction as the change that raised them, so an event
 * exists exactly when its change committed. The delivery worker (delivery-worker.ts) reads it after
 * commit and turns each row into one notification per subscriber (events/delivery-store.ts).
 */
import { compile } from '../sql/compile.js';
import { param } from '../sql/build.js';
import { OUTBOX_TABLE } from '../db/framework-tables.js';
import type { Transaction } from '../db/engine.js';
import type { Dialect } from '../sql/dialect.js';

/** An event raised by a rule, ready to be written. */
export interface OutboxEvent {
  readonly companyId: string | undefined;
  readonly eventName: string;
  readonly eventVersion: string;
  readonly payload: Readonly<Record<string, unknown>>;
  /** The user whose request raised the event (the notification's initiating user). */
  readonly userId: string;
  readonly createdAt: Date;
}

/** Writes one event in `tx`, the transaction of the change that raised it (else it could outlive a rollback). */
export async function enqueue(svc: { readonly engine: { readonly dialect: Dialect } }, tx: Transaction, event: OutboxEvent): Promise<void> {
  const values: Record<string, string | null> = {
    companyId: event.companyId ?? null,
    eventName: event.eventName,
    eventVersion: event.eventVersion,
    payload: JSON.stringify(event.payload),
    userId: event.userId,
    createdAt: event.createdAt.toISOString(),
  };
  const columns = Object.keys(values);
  await tx.run(compile({ kind: 'insert', table: OUTBOX_TABLE, columns, values: columns.map((c) => param(values[c] ?? null)) }, svc.engine.dialect));
}
