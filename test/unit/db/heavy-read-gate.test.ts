/**
 * db/heavy-read-gate.ts: heavy reads take at most `capacity` places; the waiting ones go owner by owner;
 * an owner may have `perOwner` waiting (429 past it); a read still waiting at its deadline is the 503.
 */
import { jest } from '@jest/globals';
import { HeavyReadGate } from '../../../src/db/heavy-read-gate.js';
import { ServiceUnavailableError, UserRequestLimitError } from '../../../src/errors/odata-error.js';

/** A read the test ends: `done()` lets it answer its name. */
function held(name: string, order: string[]): { read: () => Promise<string>; done: () => void } {
  let done: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (done = resolve));
  return {
    read: async () => {
      order.push(`start ${name}`);
      await gate;
      return name;
    },
    done: () => done(),
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test("two run, the others wait; a place that frees goes to the owner served longest ago; an owner's second waiting read is a 429", async () => {
  const gate = new HeavyReadGate(2, 1, 60_000);
  const order: string[] = [];
  const [a1, a2, a3, b1] = ['A1', 'A2', 'A3', 'B1'].map((n) => held(n, order)) as ReturnType<typeof held>[];
  const answers = [gate.run('A', a1!.read), gate.run('A', a2!.read), gate.run('A', a3!.read), gate.run('B', b1!.read)];
  await expect(gate.run('A', async () => 'A4')).rejects.toBeInstanceOf(UserRequestLimitError);
  await tick();
  expect(order).toEqual(['start A1', 'start A2']);
  expect(gate.load).toEqual({ running: 2, waiting: 2 });
  a1!.done();
  await tick();
  await tick();
  expect(order).toEqual(['start A1', 'start A2', 'start B1']); // B1 came after A3, but A had its turns
  a2!.done();
  b1!.done();
  a3!.done();
  expect(await Promise.all(answers)).toEqual(['A1', 'A2', 'A3', 'B1']);
  expect(gate.load).toEqual({ running: 0, waiting: 0 });
});

test("a read still waiting at the deadline answers the deadline's 503 and takes no place", async () => {
  jest.useFakeTimers();
  try {
    const gate = new HeavyReadGate(1, 8, 1000);
    const order: string[] = [];
    const first = held('first', order);
    const running = gate.run('A', first.read);
    const waiting = gate.run('B', async () => 'late');
    const outcome = waiting.then(
      () => 'ran',
      (e: unknown) => (e instanceof ServiceUnavailableError ? e.status : String(e)),
    );
    jest.advanceTimersByTime(1000);
    expect(await outcome).toBe(503);
    first.done();
    expect(await running).toBe('first');
    expect(gate.load).toEqual({ running: 0, waiting: 0 });
  } finally {
    jest.useRealTimers();
  }
});
