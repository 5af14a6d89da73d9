/**
 * src/core/fair-use.ts on a clock the test moves: the sliding window counts to the second and says how
 * long to wait; running places, the queue in arrival order, its time limit; what several instances
 * report is added to the window.
 */
import { jest } from '@jest/globals';
import { FAIR_USE_WINDOW_SECONDS, FairUse, type Release } from '../../../src/core/fair-use.js';
import { UserRequestLimitError } from '../../../src/errors/odata-error.js';

const LIMITS = { userRequestsPer5Min: 5, userConcurrentRequests: 2, userQueuedRequests: 1, requestTimeoutMs: 1000 };

function refusal(run: () => unknown): { message: string; retryAfter: string } | undefined {
  try {
    run();
  } catch (e) {
    if (!(e instanceof UserRequestLimitError)) throw e;
    expect(e.status).toBe(429);
    expect(e.code).toBe('Application_TooManyRequests');
    return { message: e.message, retryAfter: String(e.headers?.['Retry-After']) };
  }
  return undefined;
}

describe('the window', () => {
  let now = 1_000_000;
  const fair = (): FairUse => new FairUse(LIMITS, () => now);

  test('counts each user alone; the request past the limit is refused, names the setting and is not counted', () => {
    const f = fair();
    for (let i = 0; i < 5; i++) f.count('A');
    const r = refusal(() => f.count('A'));
    expect(r?.message).toBe('User A has sent 5 requests in the last 5 minutes (limits.userRequestsPer5Min in service.json); try again in 300 seconds.');
    expect(r?.retryAfter).toBe('300');
    expect(refusal(() => f.count('B'))).toBeUndefined();
    // The refused one took nothing: once the first second leaves the window, all five fit again.
    now += FAIR_USE_WINDOW_SECONDS;
    for (let i = 0; i < 5; i++) f.count('A');
    now -= FAIR_USE_WINDOW_SECONDS;
  });

  test('slides by the second: Retry-After is when enough of the oldest requests have left', () => {
    const f = fair();
    const start = now;
    f.count('A', 2); // at start
    now = start + 100;
    f.count('A', 3); // at start + 100
    now = start + 200;
    expect(refusal(() => f.count('A'))?.retryAfter).toBe('100'); // the two of `start` leave at start + 300
    expect(refusal(() => f.count('A', 3))?.retryAfter).toBe('200'); // three need the second batch too
    now = start + 299;
    expect(refusal(() => f.count('A'))?.retryAfter).toBe('1');
    now = start + 300;
    f.count('A', 2);
    expect(refusal(() => f.count('A'))?.retryAfter).toBe('100');
    now = start;
  });

  test("adds the other instances' report of the user", () => {
    const f = fair();
    f.count('A', 2);
    f.othersInWindow(new Map([['A', 3]]));
    expect(refusal(() => f.count('A'))).toBeDefined();
    expect(refusal(() => f.count('B'))).toBeUndefined();
    f.othersInWindow(new Map());
    f.count('A');
    expect(f.windowCounts()).toEqual(new Map([['A', 3], ['B', 1]]));
  });
});

describe('running places and the queue', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test('two run, one waits, the next is refused at once; a release lets the waiting one run', async () => {
    const f = new FairUse(LIMITS);
    const first = f.enter('A') as Release;
    const second = f.enter('A') as Release;
    expect(typeof first).toBe('function');
    const third = f.enter('A');
    expect(third).toBeInstanceOf(Promise);
    expect(refusal(() => f.enter('A'))?.message).toBe(
      'User A has 2 requests running and 1 waiting (limits.userConcurrentRequests in service.json, limits.userQueuedRequests in service.json); send fewer at once.',
    );
    expect(typeof f.enter('B')).toBe('function'); // another user is not held up
    expect(f.load('A')).toEqual({ running: 2, queued: 1 });
    first();
    first(); // a second release of the same place changes nothing
    const admitted = await third;
    expect(f.load('A')).toEqual({ running: 2, queued: 0 });
    admitted();
    second();
    expect(f.load('A')).toEqual({ running: 0, queued: 0 });
  });

  test('waiting past requestTimeoutMs is a 429, and the place it waited for goes to nobody', async () => {
    const f = new FairUse({ ...LIMITS, userQueuedRequests: 2 });
    const running = [f.enter('A') as Release, f.enter('A') as Release];
    const waiting = f.enter('A') as Promise<Release>;
    const outcome = waiting.then(
      () => 'admitted',
      (e: unknown) => (e instanceof UserRequestLimitError ? e.message : String(e)),
    );
    jest.advanceTimersByTime(1000);
    expect(await outcome).toBe('The request waited 1000 ms behind 2 other requests of user A (limits.userConcurrentRequests in service.json); send fewer at once.');
    expect(f.load('A')).toEqual({ running: 2, queued: 0 });
    for (const release of running) release();
    expect(f.load('A')).toEqual({ running: 0, queued: 0 });
  });

  test('the queue is first come, first served', async () => {
    const f = new FairUse({ ...LIMITS, userConcurrentRequests: 1, userQueuedRequests: 3 });
    const order: number[] = [];
    const release = f.enter('A') as Release;
    const waits = [1, 2, 3].map((n) => (f.enter('A') as Promise<Release>).then((r) => (order.push(n), r)));
    release();
    for (const w of waits) (await w)();
    expect(order).toEqual([1, 2, 3]);
  });
});
