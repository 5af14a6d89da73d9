/**
 * The GETs of a batch that follow one another (no change of the batch between them) see one snapshot
 * of the database: each is handled up to its read, which it hands to its runner here instead of
 * running it; once all of them are there, the reads run together (db/sqlite/sqlite-read-executor.ts runTogether):
 * on the event loop one after the other in the turn's shared snapshot when together they are cheap,
 * or all in one job of a read thread (one read transaction) when any of them, or their sum, is not,
 * under the same deadline and queue limits as a read alone. A read a GET starts after that (a second statement of
 * one read, rare) runs on its own.
 */
import type { ReadRequest, ReadRunner as EngineReads } from '../db/engine.js';
import type { StepResult } from '../db/read-steps.js';
import type { ReadRunner } from '../core/operation-runners.js';

interface Waiting {
  readonly read: ReadRequest;
  readonly resolve: (results: StepResult[]) => void;
  readonly reject: (error: unknown) => void;
}

/** Collects the reads of a batch's consecutive GETs and runs them in one snapshot. */
export class ReadRun {
  private readonly waiting: Waiting[] = [];
  private readonly notify = new Map<number, () => void>();
  private readonly handed = new Set<number>();
  private flushed = false;

  /** @param reads the engine's reads for the batch's intent (a replica's for an all-GET batch with `Data-Access-Intent: ReadOnly`) */
  constructor(private readonly reads: EngineReads) {}

  /** The runner of GET number `index` of the run. */
  runnerFor(index: number): ReadRunner {
    return {
      run: (read) => {
        if (this.flushed) return this.reads.run(read);
        const results = new Promise<StepResult[]>((resolve, reject) => this.waiting.push({ read, resolve, reject }));
        this.handed.add(index);
        this.notify.get(index)?.();
        return results;
      },
    };
  }

  /** Settles when GET `index` has handed over its read. */
  handedOver(index: number): Promise<void> {
    if (this.handed.has(index)) return Promise.resolve();
    return new Promise((resolve) => this.notify.set(index, resolve));
  }

  /** The work of the reads handed over, evaluated in full (the batch's budget is charged it before they run). */
  fullWork(): number | Promise<number> {
    return this.reads.fullWork(this.waiting.map((w) => w.read));
  }

  /** Fails the reads handed over with `error` instead of running them; each GET answers it. */
  abort(error: unknown): void {
    this.flushed = true;
    for (const w of this.waiting.splice(0)) w.reject(error);
  }

  /** Runs the reads handed over, together; each GET then goes on with its results. */
  async flush(): Promise<void> {
    this.flushed = true;
    const waiting = this.waiting.splice(0);
    if (waiting.length === 0) return;
    try {
      const outcomes = await this.reads.runTogether(waiting.map((w) => w.read));
      waiting.forEach((w, i) => {
        const o = outcomes[i];
        if (o === undefined) w.reject(new Error('a read of the batch gave no outcome'));
        else if (o.ok) w.resolve(o.results);
        else w.reject(o.error);
      });
    } catch (e) {
      for (const w of waiting) w.reject(e);
    }
  }
}
