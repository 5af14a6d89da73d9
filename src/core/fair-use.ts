/**
 * Fair use: what one user's requests may take of the service. Each user has a request budget over a
 * sliding window (`limits.userRequestsPer5Min`), at most `limits.userConcurrentRequests` requests
 * running at once and up to `limits.userQueuedRequests` waiting their turn, first come first served;
 * past either, or after waiting `limits.requestTimeoutMs`, 429 `Application_TooManyRequests` with
 * `Retry-After`. A `$batch` takes one running place and each of its parts one request of the budget;
 * refused requests take nothing. Business Central applies the same three bounds per user.
 *
 * The window is counted per second, so it is exact to the second within this process. Several
 * instances share it approximately: each adds what the others reported (`othersInWindow`).
 */
import { limitSetting, type ServiceLimits } from '../edm/service-limits.js';
import { UserRequestLimitError } from '../errors/odata-error.js';

/** The window's length in seconds (5 minutes, as Business Central's limit). */
export const FAIR_USE_WINDOW_SECONDS = 300;

/** The fair-use limits (a subset of the service limits). */
export type FairUseLimits = Pick<ServiceLimits, 'userRequestsPer5Min' | 'userConcurrentRequests' | 'userQueuedRequests' | 'requestTimeoutMs'>;

/** A request that waits for one of its user's running places. */
interface Waiter {
  readonly admit: () => void;
  readonly timer: NodeJS.Timeout;
}

/** One user's window (requests per second, the last 300 seconds), running requests and queue. */
class UserUse {
  readonly perSecond = new Uint32Array(FAIR_USE_WINDOW_SECONDS);
  /** The second `perSecond` was last brought up to. */
  second = 0;
  /** Requests in the window (the sum of `perSecond`). */
  inWindow = 0;
  running = 0;
  readonly queue: Waiter[] = [];

  /** Empties the seconds that left the window by `now`. */
  advance(now: number): void {
    if (now <= this.second) return;
    if (now - this.second >= FAIR_USE_WINDOW_SECONDS) {
      this.perSecond.fill(0);
      this.inWindow = 0;
    } else {
      for (let s = this.second + 1; s <= now; s++) {
        const i = s % FAIR_USE_WINDOW_SECONDS;
        this.inWindow -= this.perSecond[i] as number;
        this.perSecond[i] = 0;
      }
    }
    this.second = now;
  }

  /** Seconds until `needed` requests of the window have left it (the oldest first). */
  secondsUntilFreed(now: number, needed: number): number {
    let freed = 0;
    for (let age = FAIR_USE_WINDOW_SECONDS - 1; age >= 0; age--) {
      freed += this.perSecond[(now - age) % FAIR_USE_WINDOW_SECONDS] as number;
      if (freed >= needed) return FAIR_USE_WINDOW_SECONDS - age;
    }
    return FAIR_USE_WINDOW_SECONDS;
  }
}

/** Gives a running place back; call it once, when the request's answer is ready. */
export type Release = () => void;

/** The fair-use state of one process. */
export class FairUse {
  private readonly users = new Map<string, UserUse>();
  /** What the other instances reported of each user's window (set by the shared counter). */
  private others: ReadonlyMap<string, number> = new Map();

  constructor(
    private readonly limits: FairUseLimits,
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  /**
   * Counts `requests` against the user's window, or throws the 429 when they do not fit. A `$batch`'s
   * parts are counted one by one as they run; a request on its own counts once.
   */
  count(userId: string, requests = 1): void {
    const use = this.use(userId);
    const now = this.nowSeconds();
    use.advance(now);
    const limit = this.limits.userRequestsPer5Min;
    const others = this.others.get(userId) ?? 0;
    const over = use.inWindow + others + requests - limit;
    if (over > 0) {
      // Others' requests leave their windows too; this process knows only its own seconds.
      const wait = use.inWindow >= over ? use.secondsUntilFreed(now, over) : FAIR_USE_WINDOW_SECONDS;
      throw new UserRequestLimitError(
        `User ${userId} has sent ${limit.toLocaleString('en-US')} requests in the last 5 minutes (${limitSetting('userRequestsPer5Min')}); try again in ${wait} seconds.`,
        wait,
      );
    }
    use.perSecond[now % FAIR_USE_WINDOW_SECONDS] = (use.perSecond[now % FAIR_USE_WINDOW_SECONDS] as number) + requests;
    use.inWindow += requests;
  }

  /**
   * A running place for one of the user's requests: `Release` at once when one is free, a promise of
   * it when the request must queue, or the 429 when the queue is full. A queued request that waits
   * longer than `limits.requestTimeoutMs` gets the 429 instead.
   */
  enter(userId: string): Release | Promise<Release> {
    const use = this.use(userId);
    if (use.running < this.limits.userConcurrentRequests) {
      use.running++;
      return this.releaser(userId, use);
    }
    if (use.queue.length >= this.limits.userQueuedRequests) {
      throw new UserRequestLimitError(
        `User ${userId} has ${use.running} requests running and ${use.queue.length} waiting (${limitSetting('userConcurrentRequests')}, ${limitSetting('userQueuedRequests')}); send fewer at once.`,
        1,
      );
    }
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        admit: () => {
          clearTimeout(waiter.timer);
          use.running++;
          resolve(this.releaser(userId, use));
        },
        timer: setTimeout(() => {
          const at = use.queue.indexOf(waiter);
          if (at >= 0) use.queue.splice(at, 1);
          reject(
            new UserRequestLimitError(
              `The request waited ${this.limits.requestTimeoutMs} ms behind ${use.running} other requests of user ${userId} (${limitSetting('userConcurrentRequests')}); send fewer at once.`,
              1,
            ),
          );
        }, this.limits.requestTimeoutMs),
      };
      use.queue.push(waiter);
    });
  }

  /** Each user's requests in this process's window now (what it reports to the other instances). */
  windowCounts(): Map<string, number> {
    const now = this.nowSeconds();
    const counts = new Map<string, number>();
    for (const [userId, use] of this.users) {
      use.advance(now);
      if (use.inWindow > 0) counts.set(userId, use.inWindow);
      else if (use.running === 0 && use.queue.length === 0) this.users.delete(userId);
    }
    return counts;
  }

  /** What the other instances reported of each user's window, replacing the last report. */
  othersInWindow(counts: ReadonlyMap<string, number>): void {
    this.others = counts;
  }

  /** Requests of the user running and waiting now (for tests and the log). */
  load(userId: string): { running: number; queued: number } {
    const use = this.users.get(userId);
    return { running: use?.running ?? 0, queued: use?.queue.length ?? 0 };
  }

  private use(userId: string): UserUse {
    let use = this.users.get(userId);
    if (use === undefined) {
      use = new UserUse();
      use.second = this.nowSeconds();
      this.users.set(userId, use);
    }
    return use;
  }

  private releaser(userId: string, use: UserUse): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      use.running--;
      const next = use.queue.shift();
      if (next !== undefined) next.admit();
      else if (use.running === 0 && use.inWindow === 0) this.users.delete(userId);
    };
  }
}
