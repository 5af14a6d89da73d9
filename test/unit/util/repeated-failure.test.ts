/** src/util/repeated-failure.ts: a failure repeated at every run is one line, then one a minute, and its end one line. */
import { RepeatedFailure } from '../../../src/util/repeated-failure.js';
import type { Logger } from 'pino';

function fakeLog(): { log: Logger; lines: { level: string; obj: Record<string, unknown>; msg: string }[] } {
  const lines: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
  const at = (level: string) => (obj: Record<string, unknown>, msg: string) => lines.push({ level, obj, msg });
  return { log: { error: at('error'), info: at('info'), warn: at('warn') } as unknown as Logger, lines };
}

test('the first failure is logged with its error, repeats once a minute with their count, the recovery once', () => {
  let now = 1_000_000;
  const { log, lines } = fakeLog();
  const f = new RepeatedFailure(log, 'poll failed', 60_000, () => now);
  const err = new Error('connect ECONNREFUSED');
  f.failed(err);
  expect(lines).toEqual([{ level: 'error', obj: { err }, msg: 'poll failed' }]);
  for (let i = 0; i < 59; i++) {
    now += 1_000;
    f.failed(err);
  }
  expect(lines).toHaveLength(1);
  now += 1_000;
  f.failed(err);
  expect(lines).toHaveLength(2);
  expect(lines[1]).toEqual({ level: 'error', obj: { err, failures: 61, sinceMs: 60_000 }, msg: 'poll failed: still failing, 61 times in 60 s' });
  now += 5_000;
  f.succeeded();
  f.succeeded();
  expect(lines).toHaveLength(3);
  expect(lines[2]).toEqual({ level: 'info', obj: { failures: 61, ms: 65_000 }, msg: 'poll failed 61 times in 65 s; it works again' });
});

test('after a recovery the next failure is a new run: logged at once', () => {
  let now = 0;
  const { log, lines } = fakeLog();
  const f = new RepeatedFailure(log, 'poll failed', 60_000, () => now);
  f.failed(new Error('a'));
  now += 1_000;
  f.succeeded();
  expect(lines.map((l) => l.msg)).toEqual(['poll failed', 'poll failed once in 1 s; it works again']);
  now += 1_000;
  f.failed(new Error('b'));
  expect(lines).toHaveLength(3);
  expect(lines[2]?.msg).toBe('poll failed');
});

test('success without a failure before it logs nothing', () => {
  const { log, lines } = fakeLog();
  new RepeatedFailure(log, 'poll failed').succeeded();
  expect(lines).toHaveLength(0);
});

test('another kind of error during a run is logged at once; the same kind again is not', () => {
  let now = 0;
  const { log, lines } = fakeLog();
  const f = new RepeatedFailure(log, 'poll failed', 60_000, () => now);
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const missing = Object.assign(new Error('relation "_outbox" does not exist'), { code: '42P01' });
  f.failed(refused);
  now += 1_000;
  f.failed(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432 (again)'), { code: 'ECONNREFUSED' }));
  expect(lines).toHaveLength(1);
  now += 1_000;
  f.failed(missing);
  expect(lines).toHaveLength(2);
  expect(lines[1]).toEqual({ level: 'error', obj: { err: missing }, msg: 'poll failed' });
  now += 1_000;
  f.failed(missing);
  expect(lines).toHaveLength(2);
  now += 1_000;
  f.succeeded();
  expect(lines[2]?.msg).toBe('poll failed 4 times in 4 s; it works again');
});
