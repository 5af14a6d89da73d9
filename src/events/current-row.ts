/**
 * How a framework hook reads the row a PATCH addresses before the write's transaction opens (beforeWrite
 * is given only the changes): the subscription checks run the validation handshake against the current
 * notificationUrl when the body sends none. service.ts passes a reader of the service's database; the
 * call-out then happens outside any transaction, and the transaction still compares If-Match.
 */
import type { EntityType } from '../edm/model.js';
import type { Row } from '../hooks/types.js';

/** Reads one row of `type` by key, outside any transaction; undefined when there is none. */
export type CurrentRowReader = (type: EntityType, key: string) => Promise<Row | undefined>;

/** A reader for tools that build the hooks without serving (`check`): it is never called there. */
export const NO_ROW_READER: CurrentRowReader = () => Promise.reject(new Error('no row reader: the hooks were built without a database'));
