/**
 * A transaction in parts (Engine.transactionInParts): bodies that run in order in one transaction and
 * commit together or not at all, as a `$batch` change set's parts do. The engines run them one after
 * the other; PostgreSQL's write batches may also send a part's statements before the part before it
 * has its answers (postgres-write-batches.ts), with the result of running them one after the other.
 */
import type { Transaction } from './engine.js';

/** A part of a transaction in parts. */
export type TransactionPart<T> = (tx: Transaction) => Promise<T>;

/** The part of a transaction in parts that threw (`error`, as it threw it); the whole transaction was rolled back. */
export class TransactionPartError extends Error {
  constructor(
    readonly index: number,
    readonly error: unknown,
  ) {
    super(`part ${index + 1} of the transaction failed: ${error instanceof Error ? error.message : String(error)}`);
    this.name = 'TransactionPartError';
  }
}

/** One transaction body that runs `parts` one after the other; the first that throws ends it with TransactionPartError. */
export function partsInOrder<T>(parts: readonly TransactionPart<T>[]): TransactionPart<T[]> {
  return async (tx) => {
    const values: T[] = [];
    for (const [index, part] of parts.entries()) {
      try {
        values.push(await part(tx));
      } catch (error) {
        throw new TransactionPartError(index, error);
      }
    }
    return values;
  };
}
