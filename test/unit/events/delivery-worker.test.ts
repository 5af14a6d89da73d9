/**
 * src/events/delivery-worker.ts: a tick that fails every time (its database is down) is logged once,
 * not once per poll, and the first tick that works again says so.
 */
import { DeliveryWorker, type DeliveryQueue } from '../../../src/events/delivery-worker.js';
import { OutboxSignal } from '../../../src/events/outbox-signal.js';
import type { OutboundHttp } from '../../../src/events/outbound.js';
import type { Logger } from 'pino';

test('a database outage under the delivery worker is one error line, and its end one info line', async () => {
  const lines: { level: string; msg: string }[] = [];
  const at = (level: string) => (_obj: unknown, msg: string) => lines.push({ level, msg });
  const log = { error: at('error'), info: at('info'), warn: at('warn'), debug: () => undefined } as unknown as Logger;
  let down = true;
  let ticks = 0;
  const unavailable = (): never => {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  };
  const store = {
    prepare: async () => {
      ticks++;
      return down ? unavailable() : Number.POSITIVE_INFINITY;
    },
    subscriptionsChanged: () => undefined,
    lanes: async () => [],
  } as unknown as DeliveryQueue;
  const worker = new DeliveryWorker(store, {} as OutboundHttp, { concurrency: 1, backoffMs: [10], timeoutMs: 1_000, pollMs: 5 }, new OutboxSignal(), log);
  worker.start();
  const until = async (ok: () => boolean): Promise<void> => {
    for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  };
  await until(() => ticks >= 20);
  expect(ticks).toBeGreaterThanOrEqual(20);
  expect(lines).toEqual([{ level: 'error', msg: 'webhook delivery tick failed' }]);
  down = false;
  const failed = ticks;
  await until(() => ticks >= failed + 3);
  worker.stop();
  await worker.idle();
  expect(lines).toHaveLength(2);
  expect(lines[1]?.level).toBe('info');
  expect(lines[1]?.msg).toMatch(/^webhook delivery tick failed \d+ times in \d+ s; it works again$/);
});
