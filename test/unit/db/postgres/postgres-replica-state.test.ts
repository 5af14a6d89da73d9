/**
 * The read replicas' decisions on plain data (db/postgres/postgres-replica-state.ts): a replica's state
 * and lag from one probe, and round robin over the healthy ones. The real primary and standby are in
 * postgres-replicas.test.ts.
 */
import { judgeReplica, pickReplica } from '../../../../src/db/postgres/postgres-replica-state.js';

const MAX = 5000;

describe('judgeReplica', () => {
  test('no answer, or a server that is no standby, is down with no lag; when it was last caught up is kept', () => {
    expect(judgeReplica(undefined, 1000, 1010, 900, MAX)).toEqual({ state: 'down', lagMs: null, caughtUpAt: 900 });
    expect(judgeReplica({ standby: false, caughtUp: true, replayAgeMs: 0 }, 1000, 1010, 900, MAX)).toEqual({ state: 'down', lagMs: null, caughtUpAt: 900 });
  });

  test("a standby that replayed up to the primary's position misses nothing: lag 0, caught up as of the probe's start", () => {
    // However old its last replayed commit: the primary has written nothing since.
    expect(judgeReplica({ standby: true, caughtUp: true, replayAgeMs: 3_600_000 }, 1000, 1010, 0, MAX)).toEqual({ state: 'ok', lagMs: 0, caughtUpAt: 1000 });
  });

  test('behind: the lag is the younger of its last commit and its last caught-up probe', () => {
    // A moment behind after an idle hour: the caught-up probe half a second ago bounds it.
    expect(judgeReplica({ standby: true, caughtUp: false, replayAgeMs: 3_600_000 }, 10_000, 10_020, 9_500, MAX)).toEqual({ state: 'ok', lagMs: 520, caughtUpAt: 9_500 });
    // Replaying a steady stream: its last commit bounds it.
    expect(judgeReplica({ standby: true, caughtUp: false, replayAgeMs: 40 }, 10_000, 10_020, 2_000, MAX)).toEqual({ state: 'ok', lagMs: 40, caughtUpAt: 2_000 });
  });

  test('past the limit it is lagging; exactly at it, still ok', () => {
    expect(judgeReplica({ standby: true, caughtUp: false, replayAgeMs: 7_000 }, 10_000, 10_000, 3_000, MAX)).toEqual({ state: 'lagging', lagMs: 7_000, caughtUpAt: 3_000 });
    expect(judgeReplica({ standby: true, caughtUp: false, replayAgeMs: 5_000 }, 10_000, 10_000, undefined, MAX).state).toBe('ok');
  });

  test('behind with nothing to measure by (never caught up, nothing replayed) is lagging with no lag', () => {
    expect(judgeReplica({ standby: true, caughtUp: false, replayAgeMs: null }, 10_000, 10_000, undefined, MAX)).toEqual({ state: 'lagging', lagMs: null, caughtUpAt: undefined });
  });

  test('a replica clock a little ahead gives no negative lag', () => {
    expect(judgeReplica({ standby: true, caughtUp: false, replayAgeMs: -3 }, 10_000, 10_000, undefined, MAX).lagMs).toBe(0);
  });
});

describe('pickReplica', () => {
  test('round robin from the next one over those ok; none ok: undefined (the primary answers)', () => {
    expect(pickReplica(['ok', 'ok', 'ok'], 0)).toBe(0);
    expect(pickReplica(['ok', 'ok', 'ok'], 1)).toBe(1);
    expect(pickReplica(['ok', 'ok', 'ok'], 3)).toBe(0);
    expect(pickReplica(['ok', 'lagging', 'down'], 1)).toBe(0);
    expect(pickReplica(['down', 'lagging', 'ok'], 0)).toBe(2);
    expect(pickReplica(['down', 'lagging'], 0)).toBeUndefined();
    expect(pickReplica([], 0)).toBeUndefined();
  });
});
