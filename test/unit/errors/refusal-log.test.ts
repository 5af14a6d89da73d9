/**
 * src/errors/refusal-log.ts: a 503's cause is logged at once, the refusals like it in the next minute
 * as one line when that minute ends, and a minute without any ends the run.
 */
import type { Logger } from 'pino';
import { RefusalLog } from '../../../src/errors/refusal-log.js';

function fakeLog(): { log: Logger; lines: { obj: Record<string, unknown>; msg: string }[] } {
  const lines: { obj: Record<string, unknown>; msg: string }[] = [];
  return { log: { error: (obj: Record<string, unknown>, msg: string) => lines.push({ obj, msg }) } as unknown as Logger, lines };
}

/** A scheduler whose pending runs the test fires (each "minute" ends when the test says so). */
function manualTimers(): { schedule: (fn: () => void, ms: number) => void; pending: () => number; endMinute: () => void } {
  let queue: (() => void)[] = [];
  return {
    schedule: (fn, ms) => {
      expect(ms).toBe(60_000);
      queue.push(fn);
    },
    pending: () => queue.length,
    endMinute: () => {
      const due = queue;
      queue = [];
      for (const fn of due) fn();
    },
  };
}

const unreachable = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

test('the first refusal of a cause is logged with its error; the next minute\'s are one line when it ends', () => {
  const { log, lines } = fakeLog();
  const timers = manualTimers();
  const r = new RefusalLog(log, timers.schedule);
  r.refused(unreachable, 'c1');
  expect(lines).toEqual([{ obj: { err: unreachable, correlationId: 'c1' }, msg: 'request refused (503)' }]);
  for (let i = 0; i < 599; i++) r.refused(unreachable, `r${i}`);
  expect(lines).toHaveLength(1);
  timers.endMinute();
  expect(lines[1]).toEqual({ obj: { err: unreachable, correlationId: 'r598', refused: 599 }, msg: 'request refused (503): 599 more for the same cause in the last 60 s' });
  // The outage goes on: another minute is counted; then a minute without any ends the run.
  r.refused(unreachable, 'r-next');
  timers.endMinute();
  expect(lines).toHaveLength(3);
  expect(lines[2]?.obj['refused']).toBe(1);
  timers.endMinute();
  expect(lines).toHaveLength(3);
  expect(timers.pending()).toBe(0);
  // The cause comes back: logged at once again.
  r.refused(unreachable, 'back');
  expect(lines[3]).toEqual({ obj: { err: unreachable, correlationId: 'back' }, msg: 'request refused (503)' });
});

test('a refusal of another cause is logged at once; the same code with another message is another cause', () => {
  const { log, lines } = fakeLog();
  const timers = manualTimers();
  const r = new RefusalLog(log, timers.schedule);
  const busy = Object.assign(new Error('The database is busy with other writers; try again in a moment.'), { code: '40001' });
  r.refused(unreachable, 'a');
  r.refused(busy, 'b');
  r.refused(unreachable, 'c');
  r.refused(Object.assign(new Error('connect ECONNREFUSED 10.0.0.2:5432'), { code: 'ECONNREFUSED' }), 'd');
  expect(lines.map((l) => l.obj['correlationId'])).toEqual(['a', 'b', 'd']);
  timers.endMinute();
  expect(lines.map((l) => [l.obj['correlationId'], l.obj['refused']])).toEqual([['a', undefined], ['b', undefined], ['d', undefined], ['c', 1]]);
});

test('beyond 100 causes at once, each refusal is logged: memory stays bounded and nothing is hidden', () => {
  const { log, lines } = fakeLog();
  const timers = manualTimers();
  const r = new RefusalLog(log, timers.schedule);
  for (let i = 0; i < 100; i++) r.refused(new Error(`cause ${i}`), `c${i}`);
  expect(timers.pending()).toBe(100);
  r.refused(new Error('cause 100'), 'x1');
  r.refused(new Error('cause 100'), 'x2');
  expect(lines).toHaveLength(102);
  expect(timers.pending()).toBe(100);
  r.refused(new Error('cause 0'), 'counted');
  expect(lines).toHaveLength(102);
});
