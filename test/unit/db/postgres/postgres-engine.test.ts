/**
 * The PostgreSQL engine's contract (db/engine.ts) on a real server: a transaction's body nests
 * savepoints through its `tx`, and `db` statements issued in it are not part of it; inside a command's
 * outer transaction, transactions are savepoints of it and `db` statements and reads join it; write transactions take turns (batched per instance) and run again when a writer that does not
 * take turns changed what they read; lock waits, cancelled statements and stalled batches map to the
 * OData errors SQLite's give; the cache epoch moves with local writes that changed the access version.
 */
import { jest } from '@jest/globals';
import { createEmptyDatabase, type EmptyDatabase } from '../../../helpers/postgres.js';
import { openPostgresEngine, type PostgresEngine } from '../../../../src/db/postgres/postgres-engine.js';
import { openPostgres } from '../../../../src/db/postgres/postgres-database.js';
import { BEGIN_WRITE_TURN } from '../../../../src/db/postgres/postgres-write-batches.js';
import { postgresFrameworkTablesSql } from '../../../../src/db/postgres/postgres-framework-tables.js';
import { DEFAULT_LIMITS } from '../../../../src/edm/service-limits.js';
import { TransactionPartError } from '../../../../src/db/transaction-parts.js';
import type { DbRow, Transaction } from '../../../../src/db/engine.js';

let database: EmptyDatabase;
let engine: PostgresEngine;
beforeAll(async () => {
  database = await createEmptyDatabase('pgengine');
  engine = openPostgresEngine(database.url, { ...DEFAULT_LIMITS, requestTimeoutMs: 300 });
  await engine.db.run(q('CREATE TABLE "companies" ("id" text PRIMARY KEY)'));
  // The framework's tables, the write turn's among them (a migration makes them).
  for (const sql of postgresFrameworkTablesSql('companies')) await engine.db.run(q(sql));
  await engine.db.run(q('CREATE TABLE "x" ("id" integer PRIMARY KEY, "n" integer NOT NULL DEFAULT 0)'));
});
afterAll(async () => {
  await engine.close();
  await database.drop();
});

const q = (sql: string, params: unknown[] = []) => ({ sql, params: params as never[] });
const count = async (): Promise<number> => Number((await engine.db.get(q('SELECT count(*) AS "n" FROM "x"')))?.['n']);

beforeEach(async () => {
  await engine.db.run(q('DELETE FROM "x"'));
});

/** The ids in "x" as a read of a request sees them ("1,3"). */
const readIds = async (): Promise<unknown> => {
  const [result] = await engine.reads.run({ steps: [{ kind: 'row', query: q(`SELECT coalesce(string_agg("id"::text, ',' ORDER BY "id"), '') AS "ids" FROM "x"`) }], cancellable: () => [], cost: { correlated: false, walks: [], scans: [], table: 'x', rows: 1, expansions: [], costClass: 'test' } });
  return result?.kind === 'row' ? result.row?.['ids'] : result;
};

test('a body nests with tx.savepoint: its throw undoes only its own work; db statements and reads in a body are not part of it', async () => {
  await engine.transaction(async (tx) => {
    await tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [1]));
    await expect(
      tx.savepoint(async () => {
        await tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [2]));
        throw new Error('inner');
      }),
    ).rejects.toThrow('inner');
    await tx.savepoint(async () => tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [3])));
    // Another connection's: the body's rows are not committed yet.
    expect(await count()).toBe(0);
    expect(await readIds()).toBe('');
  });
  expect((await engine.db.all(q('SELECT "id" FROM "x" ORDER BY "id"'))).map((r) => r['id'])).toEqual([1, 3]);
});

test('inside an outer transaction, transactions are savepoints of it, and db statements and reads run in it; its throw undoes them all', async () => {
  await expect(
    engine.outerTransaction(async () => {
      await engine.db.run(q('INSERT INTO "x" ("id") VALUES ($1)', [1]));
      await expect(
        engine.transaction(async (inner) => {
          await inner.run(q('INSERT INTO "x" ("id") VALUES ($1)', [2]));
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
      await engine.transaction(async (inner) => {
        expect(await inner.get(q('SELECT count(*) AS "n" FROM "x"'))).toEqual({ n: 1 });
        await inner.run(q('INSERT INTO "x" ("id") VALUES ($1)', [3]));
      });
      expect(await readIds()).toBe('1,3');
      expect(await count()).toBe(2);
      throw new Error('undo');
    }),
  ).rejects.toThrow('undo');
  expect(await count()).toBe(0);
  // It ended: the next transaction is a job of its own again, and commits.
  await engine.outerTransaction(async () => engine.db.run(q('INSERT INTO "x" ("id") VALUES ($1)', [4])));
  await engine.transaction(async (tx) => tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [5])));
  expect(await readIds()).toBe('4,5');
});

test('read-then-write transactions of two instances take turns: none runs again, and no increment is lost', async () => {
  await engine.db.run(q('INSERT INTO "x" ("id", "n") VALUES ($1, $2)', [1, 0]));
  const other = openPostgresEngine(database.url, { ...DEFAULT_LIMITS, requestTimeoutMs: 5000 });
  let runs = 0;
  try {
    await Promise.all(
      [engine, other].flatMap((e) =>
        Array.from({ length: 8 }, () =>
          e.transaction(async (tx) => {
            runs++;
            const n = Number((await tx.get(q('SELECT "n" FROM "x" WHERE "id" = $1', [1])))?.['n']);
            await new Promise((resolve) => setTimeout(resolve, 2));
            await tx.run(q('UPDATE "x" SET "n" = $1 WHERE "id" = $2', [n + 1, 1]));
          }),
        ),
      ),
    );
  } finally {
    await other.close();
  }
  expect(await engine.db.get(q('SELECT "n" FROM "x" WHERE "id" = $1', [1]))).toEqual({ n: 16 });
  expect(runs).toBe(16);
});

test('a writer that does not take turns and changes what a transaction read makes it run again', async () => {
  await engine.db.run(q('INSERT INTO "x" ("id", "n") VALUES ($1, $2)', [1, 0]));
  // Another program's connection: its statements take no turn.
  const outside = openPostgres(database.url);
  let runs = 0;
  try {
    await engine.transaction(async (tx) => {
      runs++;
      const n = Number((await tx.get(q('SELECT "n" FROM "x" WHERE "id" = $1', [1])))?.['n']);
      if (runs === 1) await outside.exec('UPDATE "x" SET "n" = "n" + 10 WHERE "id" = 1');
      await tx.run(q('UPDATE "x" SET "n" = $1 WHERE "id" = $2', [n + 1, 1]));
    });
  } finally {
    await outside.close();
  }
  expect(runs).toBe(2);
  expect(await engine.db.get(q('SELECT "n" FROM "x" WHERE "id" = $1', [1]))).toEqual({ n: 11 });
});

test('transactions ready together share a batch: the one that throws is undone alone, the others commit', async () => {
  const outcomes = await Promise.allSettled(
    [1, 2, 3].map((id) =>
      engine.transaction(async (tx) => {
        await tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [id]));
        if (id === 2) throw new Error('refused');
      }),
    ),
  );
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect((await engine.db.all(q('SELECT "id" FROM "x" ORDER BY "id"'))).map((r) => r['id'])).toEqual([1, 3]);
});

test('driver errors map to the OData errors SQLite gives: duplicate key 409, statement past the deadline 503', async () => {
  await engine.db.run(q('INSERT INTO "x" ("id") VALUES ($1)', [1]));
  const duplicate = await engine.db.run(q('INSERT INTO "x" ("id") VALUES ($1)', [1])).catch((e: unknown) => e);
  expect(engine.mapError(duplicate)).toMatchObject({ status: 409, code: 'Internal_EntityWithSameKeyExists' });
  const slow = await engine.db.get(q('SELECT pg_sleep(2)')).catch((e: unknown) => e);
  expect(engine.mapError(slow)).toMatchObject({ status: 503, code: 'Internal_ServiceUnavailable' });
  expect(engine.mapError(new Error('plain'))).toBeUndefined();
});

test('a write that waits for its turn past the deadline, or whose statement runs past it, is a write\'s 503 and stores nothing', async () => {
  const holder = openPostgres(database.url);
  try {
    await holder.session(async (s) => {
      // Another instance's batch holds the write turn.
      await s.client.query(BEGIN_WRITE_TURN);
      try {
        const waited = await engine.transaction(async (tx) => tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [40]))).catch((e: unknown) => e);
        expect(waited).toMatchObject({ status: 503, code: 'Internal_ServiceUnavailable', headers: { 'Retry-After': '1' } });
        expect((waited as Error).message).toMatch(/^The change did not finish within 300 ms \(limits\.requestTimeoutMs in service\.json\): the database is busy with other writes/);
      } finally {
        await s.client.query('ROLLBACK');
      }
    });
  } finally {
    await holder.close();
  }
  const slow = await engine.transaction(async (tx) => {
    await tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [41]));
    await tx.get(q('SELECT pg_sleep(2)'));
  }).catch((e: unknown) => e);
  expect(slow).toMatchObject({ status: 503, code: 'Internal_ServiceUnavailable' });
  expect((slow as Error).message).toMatch(/^The change did not finish within 300 ms/);
  expect(await count()).toBe(0);
  // The engine writes again at once.
  await engine.transaction(async (tx) => tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [42])));
  expect(await count()).toBe(1);
});

test('a batch whose job stalls between its statements past the deadline is ended by the server: a write\'s 503, nothing stored, and the turn free for others meanwhile', async () => {
  const other = openPostgresEngine(database.url, { ...DEFAULT_LIMITS, requestTimeoutMs: 5000 });
  try {
    let resumed = false;
    let inserted: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (inserted = resolve));
    const stalled = engine
      .transaction(async (tx) => {
        await tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [50]));
        inserted();
        // Work that is not a statement, far past the 300 ms limit.
        await new Promise((resolve) => setTimeout(resolve, 2500));
        resumed = true;
        await tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [51]));
      })
      .catch((e: unknown) => e);
    await first;
    // Another instance's write waits for the turn only until the server ended the stalled batch's session.
    await other.transaction(async (tx) => tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [52])));
    expect(resumed).toBe(false);
    const error = await stalled;
    expect(error).toMatchObject({ status: 503, code: 'Internal_ServiceUnavailable' });
    expect((error as Error).message).toMatch(/^The change did not finish within 300 ms/);
    expect((await engine.db.all(q('SELECT "id" FROM "x" ORDER BY "id"'))).map((r) => r['id'])).toEqual([52]);
    // The engine writes again (a new connection), and a command's outer transaction may work that long.
    await engine.outerTransaction(async () => {
      await engine.db.run(q('INSERT INTO "x" ("id") VALUES ($1)', [53]));
      await new Promise((resolve) => setTimeout(resolve, 600));
      await engine.db.run(q('INSERT INTO "x" ("id") VALUES ($1)', [54]));
    });
    expect((await engine.db.all(q('SELECT "id" FROM "x" ORDER BY "id"'))).map((r) => r['id'])).toEqual([52, 53, 54]);
  } finally {
    await other.close();
  }
});

test('a batch that waits for the turn takes its snapshot after it: it sees the holder\'s commit and runs once', async () => {
  await engine.db.run(q('INSERT INTO "x" ("id", "n") VALUES ($1, $2)', [60, 0]));
  const holder = openPostgres(database.url);
  try {
    let runs = 0;
    let waiting: Promise<unknown> | undefined;
    await holder.session(async (s) => {
      // Another instance's batch holds the turn and changes the row.
      await s.client.query(BEGIN_WRITE_TURN);
      await s.client.query('UPDATE "x" SET "n" = 1 WHERE "id" = 60');
      waiting = engine.transaction(async (tx) => {
        runs++;
        const n = Number((await tx.get(q('SELECT "n" FROM "x" WHERE "id" = $1', [60])))?.['n']);
        await tx.run(q('UPDATE "x" SET "n" = $1 WHERE "id" = $2', [n + 10, 60]));
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await s.client.query('COMMIT');
    });
    await waiting;
    // A snapshot taken before the turn would read 0 and lose to the holder's update (a second run).
    expect(runs).toBe(1);
    expect(await engine.db.get(q('SELECT "n" FROM "x" WHERE "id" = $1', [60]))).toEqual({ n: 11 });
  } finally {
    await holder.close();
  }
});

test('writes have a connection of their own: reads holding every pooled connection do not hold them back', async () => {
  const small = openPostgresEngine(database.url, { ...DEFAULT_LIMITS, requestTimeoutMs: 300 }, 2);
  try {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holders = [1, 2].map(() => small.database.session(() => held));
    await small.transaction(async (tx) => tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [50])));
    release();
    await Promise.all(holders);
    expect(await count()).toBe(1);
  } finally {
    await small.close();
  }
});

/** `n` transactions queued in one turn (one batch), each one statement that doubles the row's n and adds its own number. */
function doublings(n: number, log: string[] = []): Promise<number[]> {
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      engine.transaction(async (tx) => {
        log.push(`sent ${i}`);
        const row = await tx.runReturning(q('UPDATE "x" SET "n" = "n" * 2 + $1 WHERE "id" = $2 RETURNING "n"', [i + 1, 70]));
        log.push(`answered ${i}`);
        return Number(row?.['n']);
      }),
    ),
  );
}

/** What `doublings` gives run one after the other from `n0`. */
const serially = (n0: number, n: number): number[] =>
  Array.from({ length: n }).reduce<number[]>((out, _, i) => [...out, (out[out.length - 1] ?? n0) * 2 + i + 1], []);

test('jobs of one statement are sent one behind the other, without waiting for the answers, with the result of running them in order', async () => {
  await engine.db.run(q('INSERT INTO "x" ("id", "n") VALUES ($1, $2)', [70, 0]));
  // The first batch learns that these jobs are one statement; it waits for each answer.
  const firstLog: string[] = [];
  expect(await doublings(4, firstLog)).toEqual(serially(0, 4));
  expect(firstLog.slice(0, 3)).toEqual(['sent 0', 'answered 0', 'sent 1']);
  const log: string[] = [];
  expect(await doublings(4, log)).toEqual(serially(serially(0, 4)[3] ?? 0, 4));
  // Every statement was sent before the first answer came back.
  expect(log.slice(0, 4)).toEqual(['sent 0', 'sent 1', 'sent 2', 'sent 3']);
});

test('a job taken for one statement that sends a second one after a later job\'s makes the batch run again in order', async () => {
  await engine.db.run(q('INSERT INTO "x" ("id", "n") VALUES ($1, $2)', [70, 0]));
  await doublings(2);
  const n0 = Number((await engine.db.get(q('SELECT "n" FROM "x" WHERE "id" = $1', [70])))?.['n']);
  let runs = 0;
  const [first, second] = await Promise.all([
    engine.transaction(async (tx) => {
      runs++;
      const row = await tx.runReturning(q('UPDATE "x" SET "n" = "n" * 2 + $1 WHERE "id" = $2 RETURNING "n"', [1, 70]));
      // The second statement: in order, the later job's doubling has not happened yet.
      const again = await tx.get(q('SELECT "n" FROM "x" WHERE "id" = $1', [70]));
      return [Number(row?.['n']), Number(again?.['n'])];
    }),
    engine.transaction(async (tx) => Number((await tx.runReturning(q('UPDATE "x" SET "n" = "n" * 2 + $1 WHERE "id" = $2 RETURNING "n"', [2, 70])))?.['n'])),
  ]);
  expect(runs).toBe(2);
  expect(first).toEqual([n0 * 2 + 1, n0 * 2 + 1]);
  expect(second).toBe((n0 * 2 + 1) * 2 + 2);
  // Remembered: the same batch again waits for that job's answers, and runs once.
  runs = 0;
  await Promise.all([
    engine.transaction(async (tx) => {
      runs++;
      await tx.runReturning(q('UPDATE "x" SET "n" = "n" * 2 + $1 WHERE "id" = $2 RETURNING "n"', [1, 70]));
      await tx.get(q('SELECT "n" FROM "x" WHERE "id" = $1', [70]));
    }),
    engine.transaction(async (tx) => tx.runReturning(q('UPDATE "x" SET "n" = "n" * 2 + $1 WHERE "id" = $2 RETURNING "n"', [2, 70]))),
  ]);
  expect(runs).toBe(1);
});

test('a job of one statement that fails among pipelined ones gets its error alone; the others commit', async () => {
  const insert = (id: number) => engine.transaction(async (tx) => tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [id])));
  await Promise.all([insert(80), insert(81)]);
  await engine.db.run(q('DELETE FROM "x"'));
  await engine.db.run(q('INSERT INTO "x" ("id") VALUES ($1)', [83]));
  const outcomes = await Promise.allSettled([82, 83, 84, 85].map(insert));
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  expect(engine.mapError((outcomes[1] as PromiseRejectedResult).reason)).toMatchObject({ status: 409 });
  expect((await engine.db.all(q('SELECT "id" FROM "x" ORDER BY "id"'))).map((r) => r['id'])).toEqual([82, 83, 84, 85]);
});

test('a body that throws before its promise is a failed job of its own: the pipelined jobs around it commit', async () => {
  const insert = (id: number) => engine.transaction(async (tx) => tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [id])));
  await Promise.all([insert(90), insert(91)]);
  await engine.db.run(q('DELETE FROM "x"'));
  const outcomes = await Promise.allSettled([
    insert(92),
    engine.transaction((): Promise<void> => {
      throw new Error('at once');
    }),
    insert(93),
  ]);
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ message: 'at once' });
  expect((await engine.db.all(q('SELECT "id" FROM "x" ORDER BY "id"'))).map((r) => r['id'])).toEqual([92, 93]);
});

test('a job whose first statement failed behind a failed one teaches nothing: a job of two statements is not taken for one', async () => {
  const insert = (id: number) => engine.transaction(async (tx) => tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [id])));
  let twoStepRuns = 0;
  // Read, then write: its first statement text is its own.
  const twoStep = () =>
    engine.transaction(async (tx) => {
      twoStepRuns++;
      const row = await tx.get(q('SELECT count(*) AS "c" FROM "x" WHERE "id" >= $1 AND 2 = 2', [100]));
      await tx.run(q('INSERT INTO "x" ("id", "n") VALUES ($1, $2)', [200 + twoStepRuns, Number(row?.['c'])]));
    });
  await Promise.all([insert(100), insert(101)]);
  // Its first statement fails behind the duplicate (25P02): one statement sent, but that says nothing.
  await Promise.allSettled([insert(100), twoStep()]);
  twoStepRuns = 0;
  await Promise.all([insert(102), twoStep(), insert(103)]);
  // Taken for one statement, it would have been followed at once and run again in order.
  expect(twoStepRuns).toBe(1);
});

test('jobs queued while a batch waits for the turn join it: one transaction, in queue order', async () => {
  await engine.db.run(q('INSERT INTO "x" ("id", "n") VALUES ($1, $2)', [70, 0]));
  // Its own statement text, learned as one statement first.
  const step = (k: number) => async (tx: Transaction) => tx.get(q('UPDATE "x" SET "n" = "n" * 2 + $1 WHERE "id" = $2 RETURNING "n", CAST(txid_current() AS text) AS "tx" /* joins */', [k, 70]));
  await Promise.all([engine.transaction(step(1)), engine.transaction(step(2))]);
  const n0 = Number((await engine.db.get(q('SELECT "n" FROM "x" WHERE "id" = $1', [70])))?.['n']);
  const holder = openPostgres(database.url);
  try {
    const rows: Promise<DbRow | undefined>[] = [];
    await holder.session(async (s) => {
      // Another instance's batch holds the turn.
      await s.client.query(BEGIN_WRITE_TURN);
      rows.push(engine.transaction(step(1)));
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Queued while the first one's batch waits.
      rows.push(engine.transaction(step(2)), engine.transactionInParts([step(3), step(4)]).then((r) => r[1]));
      await new Promise((resolve) => setTimeout(resolve, 50));
      await s.client.query('COMMIT');
    });
    const done = await Promise.all(rows);
    expect(new Set(done.map((r) => r?.['tx'])).size).toBe(1);
    expect(done.map((r) => Number(r?.['n']))).toEqual([serially(n0, 1)[0], serially(n0, 2)[1], serially(n0, 4)[3]]);
  } finally {
    await holder.close();
  }
});

/** A transaction in parts of `n` doublings of row 70 (its own statement text, learned apart from `doublings`'). */
function doublingParts(n: number, log: string[] = []): Promise<number[]> {
  return engine.transactionInParts(
    Array.from({ length: n }, (_, i) => async (tx: Transaction) => {
      log.push(`sent ${i}`);
      const row = await tx.runReturning(q('UPDATE "x" SET "n" = "n" * 2 + $1 WHERE "id" = $2 RETURNING "n" /* in parts */', [i + 1, 70]));
      log.push(`answered ${i}`);
      return Number(row?.['n']);
    }),
  );
}

test('the parts of a transaction in parts known as one statement are sent one behind the other, with the result of running them in order', async () => {
  await engine.db.run(q('INSERT INTO "x" ("id", "n") VALUES ($1, $2)', [70, 0]));
  const firstLog: string[] = [];
  expect(await doublingParts(4, firstLog)).toEqual(serially(0, 4));
  expect(firstLog.slice(0, 3)).toEqual(['sent 0', 'answered 0', 'sent 1']);
  const log: string[] = [];
  expect(await doublingParts(4, log)).toEqual(serially(serially(0, 4)[3] ?? 0, 4));
  expect(log.slice(0, 4)).toEqual(['sent 0', 'sent 1', 'sent 2', 'sent 3']);
});

test('a part that throws undoes its whole transaction in parts, which rejects with its index and error; the parts after it do not run, and the batch\'s other jobs commit', async () => {
  const insert = (id: number) => async (tx: Transaction) => tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [id]));
  // Learned as one statement, so the parts are pipelined.
  await Promise.all([engine.transaction(insert(120)), engine.transactionInParts([insert(121), insert(122)])]);
  await engine.db.run(q('DELETE FROM "x"'));
  let laterRan = false;
  const [before, inParts, after] = await Promise.allSettled([
    engine.transaction(insert(110)),
    engine.transactionInParts([
      insert(111),
      () => {
        throw new Error('refused');
      },
      async (tx) => {
        laterRan = true;
        return insert(112)(tx);
      },
    ]),
    engine.transaction(insert(113)),
  ]);
  expect([before.status, after.status]).toEqual(['fulfilled', 'fulfilled']);
  const reason = (inParts as PromiseRejectedResult).reason as TransactionPartError;
  expect(reason).toBeInstanceOf(TransactionPartError);
  expect(reason.index).toBe(1);
  expect(reason.error).toMatchObject({ message: 'refused' });
  expect(laterRan).toBe(false);
  expect((await engine.db.all(q('SELECT "id" FROM "x" ORDER BY "id"'))).map((r) => r['id'])).toEqual([110, 113]);
  // A part whose statement fails: its driver error, at its index; nothing of the transaction stays.
  const duplicate = await engine.transactionInParts([insert(114), insert(110), insert(115)]).catch((e: unknown) => e);
  expect(duplicate).toBeInstanceOf(TransactionPartError);
  expect((duplicate as TransactionPartError).index).toBe(1);
  expect(engine.mapError((duplicate as TransactionPartError).error)).toMatchObject({ status: 409 });
  expect((await engine.db.all(q('SELECT "id" FROM "x" ORDER BY "id"'))).map((r) => r['id'])).toEqual([110, 113]);
});

test('a part taken for one statement that sends a second one after the next part\'s makes its batch run again in order', async () => {
  await engine.db.run(q('INSERT INTO "x" ("id", "n") VALUES ($1, $2)', [70, 0]));
  await doublingParts(2);
  const n0 = Number((await engine.db.get(q('SELECT "n" FROM "x" WHERE "id" = $1', [70])))?.['n']);
  let runs = 0;
  const doubling = (k: number) => (tx: Transaction) => tx.runReturning(q('UPDATE "x" SET "n" = "n" * 2 + $1 WHERE "id" = $2 RETURNING "n" /* in parts */', [k, 70]));
  const [first, second] = await engine.transactionInParts<unknown>([
    async (tx) => {
      runs++;
      const row = await doubling(1)(tx);
      const again = await tx.get(q('SELECT "n" FROM "x" WHERE "id" = $1', [70]));
      return [Number(row?.['n']), Number(again?.['n'])];
    },
    async (tx) => Number((await doubling(2)(tx))?.['n']),
  ]);
  expect(runs).toBe(2);
  expect(first).toEqual([n0 * 2 + 1, n0 * 2 + 1]);
  expect(second).toBe((n0 * 2 + 1) * 2 + 2);
});

test('a transaction in parts inside an outer transaction is a savepoint of it', async () => {
  await engine.outerTransaction(async () => {
    await engine.db.run(q('INSERT INTO "x" ("id") VALUES ($1)', [130]));
    const failed = await engine
      .transactionInParts([async (inner) => inner.run(q('INSERT INTO "x" ("id") VALUES ($1)', [131])), async (inner) => inner.run(q('INSERT INTO "x" ("id") VALUES ($1)', [130]))])
      .catch((e: unknown) => e);
    expect(failed).toMatchObject({ index: 1 });
    expect(await engine.transactionInParts([async (inner) => inner.run(q('INSERT INTO "x" ("id") VALUES ($1)', [132]))])).toEqual([1]);
  });
  expect((await engine.db.all(q('SELECT "id" FROM "x" ORDER BY "id"'))).map((r) => r['id'])).toEqual([130, 132]);
});

test('the cache epoch moves after a local write that changed the access version, not after other writes (another instance\'s counts within its short period)', async () => {
  // One period throughout (the epoch also moves when it ends).
  const now = jest.spyOn(Date, 'now').mockReturnValue(Date.now());
  try {
    // The first batch tells the version the engine had not seen yet.
    await engine.transaction(async (tx) => tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [4])));
    const before = engine.cacheEpoch;
    await engine.transaction(async (tx) => tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [5])));
    await Promise.all([6, 7].map((id) => engine.transaction(async (tx) => tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [id])))));
    expect(engine.cacheEpoch).toBe(before);
    // As the triggers on the access tables do, in a batch with another write.
    // Moved when either write's promise settles: the requests after it check the version.
    const seen = await Promise.all([
      engine.transaction(async (tx) => tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [8]))).then(() => engine.cacheEpoch),
      engine.transaction(async (tx) => tx.run(q('UPDATE "_accessVersion" SET "version" = "version" + 1 WHERE "id" = 1'))).then(() => engine.cacheEpoch),
    ]);
    expect(seen[0]).not.toBe(before);
    expect(seen[1]).toBe(seen[0]);
    const after = engine.cacheEpoch;
    await engine.transaction(async (tx) => tx.run(q('INSERT INTO "x" ("id") VALUES ($1)', [9])));
    expect(engine.cacheEpoch).toBe(after);
    // A statement of db outside a transaction moves it, as before.
    await engine.db.run(q('INSERT INTO "x" ("id") VALUES ($1)', [10]));
    expect(engine.cacheEpoch).not.toBe(after);
  } finally {
    now.mockRestore();
  }
});
