/** src/errors/refusal-log.ts: 503s are logged once per cause, then once a minute with their count. */
import type { Logger } from 'pino';
import { RefusalLog } from '../../../src/errors/refusal-log.js';

function fakeLog(): { log: Logger; lines: { obj: Record<string, unknown>; msg: string }[] } {
  const lines: { obj: Record<string, unknown>; msg: string }[] = [];
  return { log: { error: (obj: Record<string, unknown>, msg: string) => lines.push({ obj, msg }) } as unknown as Logger, lines };
}

const unreachable = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

test('the first refusal of a cause is logged with its error; repeats once a minute with their count', () => {
  let now = 1_000_000;
  const { log, lines } = fakeLog();
  const r = new RefusalLog(log, () => now);
  r.refused(unreachable, 'c1');
  expect(lines).toEqual([{ obj: { err: unreachable, correlationId: 'c1' }, msg: 'request refused (503)' }]);
  for (let i = 0; i < 599; i++) {
    now += 100;
    r.refused(unreachable, `r${i}`);
  }
  expect(lines).toHaveLength(1);
  now += 100;
  r.refused(unreachable, 'c2');
  expect(lines).toHaveLength(2);
  expect(lines[1]).toEqual({ obj: { err: unreachable, correlationId: 'c2', refused: 600 }, msg: 'request refused (503): 600 more for the same cause in 60 s' });
});

test('another cause is logged at once; one that comes back after a quiet minute is logged at once, with the earlier run\'s unlogged count', () => {
  let now = 0;
  const { log, lines } = fakeLog();
  const r = new RefusalLog(log, () => now);
  const busy = Object.assign(new Error('The database is busy with other writers; try again in a moment.'), { code: '40001' });
  r.refused(unreachable, 'a');
  r.refused(busy, 'b');
  r.refused(unreachable, 'c');
  r.refused(unreachable, 'd');
  expect(lines.map((l) => l.obj['correlationId'])).toEqual(['a', 'b']);
  now += 61_000;
  r.refused(unreachable, 'e');
  expect(lines).toHaveLength(3);
  expect(lines[2]?.obj).toEqual({ err: unreachable, correlationId: 'e', earlierUnlogged: 2 });
  // The same code with another message is another cause.
  r.refused(Object.assign(new Error('connect ECONNREFUSED 10.0.0.2:5432'), { code: 'ECONNREFUSED' }), 'f');
  expect(lines).toHaveLength(4);
});

test('at most 100 causes are remembered: the oldest is forgotten (logged again when it comes back)', () => {
  const { log, lines } = fakeLog();
  const r = new RefusalLog(log, () => 0);
  for (let i = 0; i < 101; i++) r.refused(new Error(`cause ${i}`), `c${i}`);
  expect(lines).toHaveLength(101);
  r.refused(new Error('cause 100'), 'again');
  expect(lines).toHaveLength(101);
  r.refused(new Error('cause 0'), 'back');
  expect(lines).toHaveLength(102);
});
