/**
 * The reads of requests sent with `Data-Access-Intent: ReadOnly` (conventions §13; Engine.readsFor):
 * on a healthy replica, round robin (postgres-replicas.ts), else on the primary. A read that fails on
 * the replica (it went away, a statement cancelled by a conflict with recovery, anything else) runs
 * again on the primary, whose answer or error is the request's: the header never turns into an error.
 * Only row reads come here; tokens, grants, the access version and path lookups go through `db`, on
 * the primary, so a revoked token is refused whatever the header.
 */
import type { ReadRequest, ReadRunner } from '../engine.js';
import type { ReadOutcome, StepResult } from '../read-steps.js';

/** A replica's reads (postgres-replicas.ts Replica). */
interface ReplicaReads {
  readonly reads: { run(read: ReadRequest): Promise<StepResult[]>; runTogether(reads: readonly ReadRequest[]): Promise<ReadOutcome[]> };
}

/** Which replica reads next, and what to do when it fails (postgres-replicas.ts PostgresReplicas). */
export interface ReplicaChoice<R extends ReplicaReads> {
  pick(): R | undefined;
  failed(replica: R, error: unknown): void;
}

/** Reads on a replica, falling back to the primary (see the file comment). */
export class PostgresReplicaReads<R extends ReplicaReads> implements ReadRunner {
  constructor(
    private readonly replicas: ReplicaChoice<R>,
    private readonly primary: ReadRunner,
  ) {}

  run(read: ReadRequest): StepResult[] | Promise<StepResult[]> {
    const replica = this.replicas.pick();
    if (replica === undefined) return this.primary.run(read);
    return replica.reads.run(read).catch((e: unknown) => {
      this.replicas.failed(replica, e);
      return this.primary.run(read);
    });
  }

  /** Priced on the primary: a replica holds the same rows. */
  fullWork(reads: readonly ReadRequest[]): number | Promise<number> {
    return this.primary.fullWork(reads);
  }

  /** The reads in one snapshot of a replica; those that failed there run again together on the primary. */
  async runTogether(reads: readonly ReadRequest[]): Promise<ReadOutcome[]> {
    const replica = this.replicas.pick();
    if (replica === undefined) return this.primary.runTogether(reads);
    let outcomes: ReadOutcome[];
    try {
      outcomes = await replica.reads.runTogether(reads);
    } catch (e) {
      this.replicas.failed(replica, e);
      return this.primary.runTogether(reads);
    }
    const failed = outcomes.flatMap((o, i) => (o.ok ? [] : [i]));
    if (failed.length === 0) return outcomes;
    const first = outcomes[failed[0] as number];
    if (first !== undefined && !first.ok) this.replicas.failed(replica, first.error);
    const again = await this.primary.runTogether(failed.map((i) => reads[i] as ReadRequest));
    failed.forEach((at, i) => {
      outcomes[at] = again[i] ?? { ok: false, error: new Error('a read run again on the primary gave no outcome') };
    });
    return outcomes;
  }
}
