/**
 * Where the reads of `Data-Access-Intent: ReadOnly` run (db/postgres/postgres-replica-reads.ts), with
 * plain runners in place of the pools: a healthy replica answers; none, or one that fails, leaves the
 * answer to the primary, whose error (not the replica's) is the client's. The real servers are in
 * postgres-replicas.test.ts.
 */
import type { ReadRequest, ReadRunner } from '../../../../src/db/engine.js';
import type { ReadOutcome, StepResult } from '../../../../src/db/read-steps.js';
import { PostgresReplicaReads } from '../../../../src/db/postgres/postgres-replica-reads.js';

/** A read whose name its runner answers with (a row of that name). */
const read = (name: string): ReadRequest => ({ steps: [], cancellable: () => [], cost: { name } as unknown as ReadRequest['cost'] });
const nameOf = (r: ReadRequest): string => (r.cost as unknown as { name: string }).name;
const row = (server: string, r: ReadRequest): StepResult[] => [{ kind: 'row', row: { server, read: nameOf(r) } }];

/** A runner of `server` that fails the reads named in `failing` (runTogether: that read's outcome). */
function runner(server: string, failing: readonly string[] = [], down = false): ReadRunner & { run(r: ReadRequest): Promise<StepResult[]>; runTogether(rs: readonly ReadRequest[]): Promise<ReadOutcome[]> } {
  return {
    run: async (r) => {
      if (down || failing.includes(nameOf(r))) throw new Error(`${server} failed ${nameOf(r)}`);
      return row(server, r);
    },
    runTogether: async (rs) => {
      if (down) throw new Error(`${server} is down`);
      return rs.map((r) => (failing.includes(nameOf(r)) ? { ok: false, error: new Error(`${server} failed ${nameOf(r)}`) } : { ok: true, results: row(server, r) }));
    },
    fullWork: (rs) => (server === 'primary' ? 1000 : 1) * rs.length,
  };
}

function choice(replica: { reads: ReturnType<typeof runner> } | undefined) {
  const failures: unknown[] = [];
  return { failures, pick: () => replica, failed: (_: unknown, e: unknown) => void failures.push(e) };
}

const servers = (results: StepResult[] | ReadOutcome[]): unknown[] =>
  results.map((x) => {
    const r = 'ok' in x ? (x.ok ? x.results[0] : undefined) : x;
    return r?.kind === 'row' ? r.row?.['server'] : 'failed';
  });

test('a healthy replica answers; with none, the primary', async () => {
  expect(servers(await new PostgresReplicaReads(choice({ reads: runner('replica') }), runner('primary')).run(read('a')))).toEqual(['replica']);
  expect(servers(await new PostgresReplicaReads(choice(undefined), runner('primary')).run(read('a')))).toEqual(['primary']);
  expect(servers(await new PostgresReplicaReads(choice(undefined), runner('primary')).runTogether([read('a'), read('b')]))).toEqual(['primary', 'primary']);
});

test("a read that fails on the replica runs again on the primary; the replica's failure is told, never answered", async () => {
  const c = choice({ reads: runner('replica', ['a']) });
  expect(servers(await new PostgresReplicaReads(c, runner('primary')).run(read('a')))).toEqual(['primary']);
  expect(c.failures).toHaveLength(1);
  await expect(new PostgresReplicaReads(choice({ reads: runner('replica', ['a']) }), runner('primary', ['a'])).run(read('a'))).rejects.toThrow('primary failed a');
});

test("reads together: those that failed on the replica run again on the primary, in their places; a replica that fails the whole run leaves it all to the primary", async () => {
  const c = choice({ reads: runner('replica', ['b']) });
  expect(servers(await new PostgresReplicaReads(c, runner('primary')).runTogether([read('a'), read('b'), read('c')]))).toEqual(['replica', 'primary', 'replica']);
  expect(c.failures).toHaveLength(1);
  expect(servers(await new PostgresReplicaReads(choice({ reads: runner('replica', [], true) }), runner('primary')).runTogether([read('a'), read('b')]))).toEqual(['primary', 'primary']);
  // The primary's own failure stays that read's outcome.
  expect(servers(await new PostgresReplicaReads(choice({ reads: runner('replica', ['b']) }), runner('primary', ['b'])).runTogether([read('a'), read('b')]))).toEqual(['replica', 'failed']);
});

test('a batch\'s reads are priced on the primary, whose sizes a replica shares', () => {
  expect(new PostgresReplicaReads(choice({ reads: runner('replica') }), runner('primary')).fullWork([read('a'), read('b')])).toBe(2000);
});
