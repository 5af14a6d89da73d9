/**
 * The transaction of one change set (multipart) or atomicity group (JSON): every part is prepared
 * first, in order, each through the whole pipeline of a request on its own (authorization, body
 * validation, beforeWrite hooks), and stops at its transaction body, which it hands to its runner
 * here; once all parts are prepared, their bodies run in ONE transaction (write-session.ts
 * inOneWriteTransaction), in order, and each part then writes its response. A part that fails while
 * prepared, or a body that throws, fails the change set: nothing of it is written, no event of it
 * leaves, and the other parts answer 424 (JSON Format §19.5 allows that; multipart answers the
 * failure alone).
 *
 * A later part may address what an earlier one created (`$1/engChangeNoticeComments`) while it is
 * prepared, before anything is written: inside a change set a create gives its entity its generated
 * key before the transaction (WriteRunner.keysFirst), so the URL of `$1` is known then.
 */
import { FailedDependencyError } from '../errors/odata-error.js';
import { inOneWriteTransaction, type WriteJob } from '../store/write-session.js';
import { TransactionPartError } from '../db/transaction-parts.js';
import type { CreatedEntity, WriteRunner } from '../core/operation-runners.js';
import type { ServiceContext } from '../core/service-context.js';

interface Pending {
  readonly job: WriteJob;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** Collects the transaction bodies of a change set's parts, then runs them in one transaction. */
export class ChangeSetTransaction {
  private readonly pending = new Map<number, Pending>();
  private readonly waiting = new Map<number, () => void>();

  /** The runner of part `index`; `onCreated` hears what a create will make before it is written. */
  runnerFor(index: number, onCreated: (created: CreatedEntity | undefined) => void): WriteRunner {
    return {
      keysFirst: true,
      run: <T>(_svc: ServiceContext, identity: WriteJob['identity'], body: WriteJob['body'], created?: CreatedEntity): Promise<T> => {
        if (this.pending.has(index)) throw new Error(`part ${index + 1} of a change set ran a second transaction`);
        onCreated(created);
        const result = new Promise<T>((resolve, reject) => {
          this.pending.set(index, { job: { identity, body }, resolve: resolve as (v: unknown) => void, reject });
        });
        this.waiting.get(index)?.();
        return result;
      },
    };
  }

  /** Settles when part `index` has handed over its transaction body. */
  prepared(index: number): Promise<void> {
    if (this.pending.has(index)) return Promise.resolve();
    return new Promise((resolve) => this.waiting.set(index, resolve));
  }

  /** Fails every part prepared so far with `error` (another part failed): nothing is written. */
  abort(error: FailedDependencyError): void {
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }

  /**
   * Runs the prepared bodies in one transaction; each part's runner settles with its result, or all
   * fail. Gives the index of the part whose body failed (undefined when all committed, or when the
   * transaction itself failed: then every part has that error).
   */
  async commit(svc: ServiceContext, labels: readonly string[]): Promise<number | undefined> {
    const order = [...this.pending.keys()].sort((a, b) => a - b);
    const parts = order.map((i) => this.pending.get(i) as Pending);
    this.pending.clear();
    try {
      const results = await inOneWriteTransaction(
        svc,
        parts.map((p) => p.job),
      );
      parts.forEach((p, i) => p.resolve(results[i]));
      return undefined;
    } catch (e) {
      if (!(e instanceof TransactionPartError)) {
        for (const p of parts) p.reject(e);
        return order[0];
      }
      const failed = order[e.index];
      const label = labels[failed ?? 0] ?? 'another request';
      parts.forEach((p, i) => p.reject(i === e.index ? e.error : new FailedDependencyError(`Not applied: ${label} of the same change set failed, and a change set is applied whole or not at all.`)));
      return failed;
    }
  }
}
