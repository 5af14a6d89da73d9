/**
 * The transactional outbox (conventions §6, STYLE habit 8): business events are rows of the hidden
 * table `_outbox`, written in the same transaction as the change that raised them, so an event
 * exists exactly when its change committed. The delivery worker (delivery-worker.ts) reads it after
 * commit and turns each row into one notification per subscriber (fan-out.ts).
 */
import { compile } from '../sql/compile.js';
import { sqliteDialect } from '../sql/sqlite-dialect.js';
import { param } from '../sql/build.js';
import type { Database } from '../db/database.js';
import type { Transaction } from '../db/engine.js';
import type { Dialect } from '../sql/dialect.js';

/** The hidden table; the leading underscore keeps it apart from entity-set tables. */
export const OUTBOX_TABLE = '_outbox';

/**
 * State of an outbox row: `Pending` until fanned out; `Delivered` once handed to the notification queue
 * (one `_notifications` row per subscriber, each with its own delivery state); `Failed` is not used by
 * the worker (kept by the table's CHECK for databases created before delivery existed).
 */
export type OutboxStatus = 'Pending' | 'Delivered' | 'Failed';

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

const q = (name: string): string => sqliteDialect.quoteIdentifier(name);

/**
 * Creates the outbox table when missing (start-up). The integer id is the delivery order; companyId has
 * no foreign key, so deleting a company does not drop events that still have to be delivered.
 */
export function createOutboxTable(db: Database): void {
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${q(OUTBOX_TABLE)} (\n` +
      `  ${q('id')} INTEGER PRIMARY KEY AUTOINCREMENT,\n` +
      `  ${q('companyId')} TEXT,\n` +
      `  ${q('eventName')} TEXT NOT NULL,\n` +
      `  ${q('eventVersion')} TEXT NOT NULL,\n` +
      `  ${q('payload')} TEXT NOT NULL CHECK (json_valid(${q('payload')})),\n` +
      `  ${q('createdAt')} TEXT NOT NULL,\n` +
      `  ${q('userId')} TEXT,\n` +
      `  ${q('status')} TEXT NOT NULL DEFAULT 'Pending' CHECK (${q('status')} IN ('Pending', 'Delivered', 'Failed'))\n` +
      `) STRICT`,
  );
  // Databases created before delivery existed lack the initiating user.
  const columns = db.raw.prepare(`SELECT name FROM pragma_table_info(?)`).all(OUTBOX_TABLE) as { name: string }[];
  if (!columns.some((c) => c.name === 'userId')) db.exec(`ALTER TABLE ${q(OUTBOX_TABLE)} ADD COLUMN ${q('userId')} TEXT`);
  db.exec(`CREATE INDEX IF NOT EXISTS ${q(`${OUTBOX_TABLE}_ix_status_id`)} ON ${q(OUTBOX_TABLE)}(${q('status')}, ${q('id')})`);
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
