/**
 * The in-process signal from the write path to the delivery worker: a commit wrote outbox rows
 * (`events`: look for work at once instead of at the next poll), or changed webhook subscriptions
 * (`subscriptions`: a deleted one's pending notifications are to be failed).
 */

/** What a commit changed that the worker cares about. */
export type OutboxChange = 'events' | 'subscriptions';

/** A set of listeners called after such commits. */
export class OutboxSignal {
  private readonly listeners = new Set<(change: OutboxChange) => void>();

  /** Registers a listener; returns the function that removes it. */
  listen(listener: (change: OutboxChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls every listener (a listener's error is its own business and is not propagated). */
  notify(change: OutboxChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        // A listener must not turn a committed write into a failed request.
      }
    }
  }
}
