/**
 * The names and states of the framework's own hidden tables that more than one layer reads: the
 * access version, the transactional outbox (written by the store in the writing transaction, read by the delivery worker)
 * and webhook delivery's notifications and attempts. Each engine creates them with its own DDL
 * (sqlite/sqlite-framework-tables.ts, postgres/postgres-framework-tables.ts); the leading underscore
 * keeps them apart from entity-set tables.
 */

/**
 * Reads the access version (one row, "version"), on either engine: triggers raise it on every change to
 * users, grants, tokens or companies, so the access cache (auth/access-cache.ts) knows when to forget,
 * whichever connection wrote.
 */
export const ACCESS_VERSION_SQL = 'SELECT "version" FROM "_accessVersion" WHERE "id" = 1';

/** Business events written in the transaction of the change that raised them. */
export const OUTBOX_TABLE = '_outbox';

/** One notification per (event, subscription), its body fixed at fan-out. */
export const NOTIFICATIONS_TABLE = '_notifications';

/** One row per delivery attempt. */
export const ATTEMPTS_TABLE = '_deliveryAttempts';

/**
 * Each instance's report of each user's requests in its fair-use window (core/fair-use.ts): one row
 * per instance and user, rewritten about once a second, so instances add up one another's counts.
 */
export const USER_REQUESTS_TABLE = '_userRequests';

/**
 * State of an outbox row: `Pending` until fanned out; `Delivered` once handed to the notification queue
 * (one `_notifications` row per subscriber, each with its own delivery state); `Failed` is not used by
 * the worker (kept by the table's CHECK for databases created before delivery existed).
 */
export type OutboxStatus = 'Pending' | 'Delivered' | 'Failed';

/** Delivery state of a notification. */
export type NotificationStatus = 'Pending' | 'Sent' | 'Failed';

/** What one attempt led to: delivered, to be retried, or given up. */
export type AttemptOutcome = 'Sent' | 'Retry' | 'Failed';
