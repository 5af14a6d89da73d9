/**
 * A transaction in parts run one after the other (db/transaction-parts.ts): the values in order, and
 * the first part that throws ends the body with its index and error, the parts after it not run.
 */
import { partsInOrder, TransactionPartError } from '../../../src/db/transaction-parts.js';
import type { Transaction } from '../../../src/db/engine.js';

const tx = {} as Transaction;

test('the parts run one after the other and give their values in order', async () => {
  const ran: number[] = [];
  const part = (n: number) => async () => {
    await new Promise((resolve) => setTimeout(resolve, 3 - n));
    ran.push(n);
    return n * 10;
  };
  expect(await partsInOrder([part(0), part(1), part(2)])(tx)).toEqual([0, 10, 20]);
  expect(ran).toEqual([0, 1, 2]);
});

test('the first part that throws ends the body with TransactionPartError: its index and what it threw; the parts after it do not run', async () => {
  const refused = new Error('refused');
  let laterRan = false;
  const outcome = await partsInOrder<number>([
    async () => 1,
    async () => {
      throw refused;
    },
    async () => {
      laterRan = true;
      return 3;
    },
  ])(tx).catch((e: unknown) => e);
  expect(outcome).toBeInstanceOf(TransactionPartError);
  expect(outcome).toMatchObject({ index: 1, error: refused, message: 'part 2 of the transaction failed: refused' });
  expect(laterRan).toBe(false);
});

test('no parts: no values', async () => {
  expect(await partsInOrder([])(tx)).toEqual([]);
});
