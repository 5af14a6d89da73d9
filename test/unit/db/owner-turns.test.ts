/**
 * db/owner-turns.ts fairestJob (the SQLite read pool's and the PostgreSQL heavy reads' turns): the read threads take their owners' jobs in turn, so a
 * user with many large reads queued does not go before another user's one.
 */
import { fairestJob } from '../../../src/db/owner-turns.js';

const jobs = (...owners: (string | undefined)[]): { owner: string | undefined }[] => owners.map((owner) => ({ owner }));

/** Takes every job as the pool does; the owners in the order they run. */
function drain(queue: { owner: string | undefined }[], lastServed = new Map<string | undefined, number>()): (string | undefined)[] {
  const order: (string | undefined)[] = [];
  for (let seq = lastServed.size; queue.length > 0; seq++) {
    const [job] = queue.splice(fairestJob(queue, lastServed), 1);
    order.push(job?.owner);
    lastServed.set(job?.owner, seq);
  }
  return order;
}

test("a queue of one user's jobs runs in order", () => {
  expect(drain(jobs('A', 'A', 'A'))).toEqual(['A', 'A', 'A']);
});

test("A's one job that just ran does not let A's next jobs go before B's, which came later", () => {
  expect(drain(jobs('A', 'A', 'A', 'B'), new Map([['A', 0]]))).toEqual(['B', 'A', 'A', 'A']);
});

test('owners take turns, each in the order of its own jobs', () => {
  const queue = [{ owner: 'A', n: 1 }, { owner: 'A', n: 2 }, { owner: 'A', n: 3 }, { owner: 'B', n: 1 }, { owner: 'C', n: 1 }, { owner: 'B', n: 2 }];
  const lastServed = new Map<string | undefined, number>();
  const order: string[] = [];
  for (let seq = 0; queue.length > 0; seq++) {
    const [job] = queue.splice(fairestJob(queue, lastServed), 1);
    order.push(`${job?.owner}${job?.n}`);
    lastServed.set(job?.owner, seq);
  }
  expect(order).toEqual(['A1', 'B1', 'C1', 'A2', 'B2', 'A3']);
});

test('jobs without an owner share one turn', () => {
  expect(drain(jobs(undefined, undefined, 'A'))).toEqual([undefined, 'A', undefined]);
});
