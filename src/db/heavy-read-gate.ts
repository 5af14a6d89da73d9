/**
 * Heavy reads on an engine whose reads each hold a pooled connection (PostgreSQL): a lambda over a
 * collection (work that grows with the related rows, ReadCost.correlated), or a read expected past
 * limits.maxInlineRows (postgres-reads.ts isHeavy), takes one of `capacity` places, so the rest of the
 * pool stays free for the cheap reads that must never wait behind it.
 * Waiting reads are taken owner by owner (owner-turns.ts); an owner may have `perOwner` waiting (more is
 * a 429), and a read still waiting at its deadline answers the deadline's 503.
 */
import { limitSetting } from '../edm/service-limits.js';
import { UserRequestLimitError } from '../errors/odata-error.js';
import { OwnerTurns } from './owner-turns.js';
import { readTimeoutError } from './read-steps.js';

interface Waiter {
  readonly owner: string | undefined;
  readonly admit: () => void;
  readonly timer: NodeJS.Timeout;
}

export class HeavyReadGate {
  private running = 0;
  private readonly queue: Waiter[] = [];
  private readonly turns = new OwnerTurns();

  constructor(
    /** Heavy reads that run at once. */
    readonly capacity: number,
    /** Heavy reads of one owner that may wait. */
    private readonly perOwner: number,
    /** How long a read may wait, ms (the request deadline). */
    private readonly timeoutMs: number,
  ) {}

  /** Runs `read` in a place: at once when one is free, else after waiting its turn. */
  async run<T>(owner: string | undefined, read: () => Promise<T>): Promise<T> {
    await this.enter(owner);
    try {
      return await read();
    } finally {
      this.leave();
    }
  }

  /** Reads running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.queue.length };
  }

  private enter(owner: string | undefined): Promise<void> | void {
    if (this.running < this.capacity) {
      this.running++;
      this.turns.record(owner);
      return;
    }
    if (owner !== undefined) {
      let waiting = 0;
      for (const w of this.queue) if (w.owner === owner) waiting++;
      if (waiting >= this.perOwner) {
        throw new UserRequestLimitError(
          `User ${owner} has ${waiting} large reads waiting (${limitSetting('userQueuedReads')}); send fewer at once.`,
          Math.ceil(this.timeoutMs / 1000),
        );
      }
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        owner,
        admit: () => {
          clearTimeout(waiter.timer);
          this.running++;
          resolve();
        },
        timer: setTimeout(() => {
          const at = this.queue.indexOf(waiter);
          if (at >= 0) this.queue.splice(at, 1);
          reject(readTimeoutError(this.timeoutMs));
        }, this.timeoutMs),
      };
      this.queue.push(waiter);
    });
  }

  private leave(): void {
    this.running--;
    if (this.queue.length > 0) this.turns.take(this.queue).admit();
  }
}
