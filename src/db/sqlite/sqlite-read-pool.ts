/**
 * Read threads for SQLite (conventions §11: no request may delay the others): better-sqlite3 runs a
 * statement synchronously and cannot be interrupted from outside, so a read whose work the cost model
 * cannot bound runs here, on a thread of its own with its own read-only connection, while the event
 * loop goes on serving. Each job has a deadline: it is answered 503 with Retry-After when the deadline
 * passes (queued or running), and the thread's `odata_live()` check ends the statement itself. A thread
 * that does not come back soon after (busy where no check runs, e.g. sorting a large intermediate
 * result) is let go and replaced: terminate() stops it once its statement gives control back, and the
 * pool does not wait for that. Threads start on first use, so a service whose reads all stay on the
 * event loop has none.
 */
import { Worker } from 'node:worker_threads';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { ODataError, ServiceUnavailableError, UserRequestLimitError } from '../../errors/odata-error.js';
import { limitSetting } from '../../edm/service-limits.js';
import { readTimeoutError, type ReadOutcome, type ReadStep, type StepResult } from '../read-steps.js';
import type { WorkerError, WorkerJob, WorkerReply } from './sqlite-read-worker.js';
import { OwnerTurns } from '../owner-turns.js';

/**
 * The compiled thread script. Beside this module when it runs compiled; the tests run the sources,
 * and threads load compiled code only: then dist/ (npm test builds it first).
 */
function workerScript(): URL {
  const here = fileURLToPath(import.meta.url);
  const sibling = path.join(path.dirname(here), 'sqlite-read-worker.js');
  if (fs.existsSync(sibling)) return new URL(`file://${sibling}`);
  let dir = path.dirname(here);
  for (;;) {
    const candidate = path.join(dir, 'dist', 'src', 'db', 'sqlite', 'sqlite-read-worker.js');
    if (fs.existsSync(candidate)) return new URL(`file://${candidate}`);
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('sqlite-read-worker.js not found: run npm run build');
    dir = parent;
  }
}

interface Job {
  readonly id: number;
  /** Who asked (a user id), or undefined: the queue is shared fairly among owners. */
  readonly owner: string | undefined;
  readonly reads: readonly (readonly ReadStep[])[];
  readonly deadline: number;
  readonly resolve: (r: ReadOutcome[]) => void;
  readonly reject: (e: unknown) => void;
  timer?: NodeJS.Timeout;
  settled: boolean;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
  /** Terminates the thread if its job does not come back this long after its deadline. */
  watchdog?: NodeJS.Timeout;
}

/** Settings of the pool. */
export interface ReadPoolOptions {
  readonly file: string;
  readonly threads: number;
  readonly maxQueued: number;
  /** Jobs one owner may have waiting; more is a 429 (limits.userQueuedReads). */
  readonly maxQueuedPerOwner?: number;
  readonly timeoutMs: number;
  /** How long a thread may overrun a deadline before it is replaced, ms. */
  readonly graceMs?: number;
}

/** A pool of read threads on one SQLite file. */
export class ReadPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private readonly turns = new OwnerTurns();

  constructor(
    private readonly options: ReadPoolOptions,
    private readonly log: Logger,
  ) {}

  /** Threads running now (started on first use; a replaced one counts once). */
  get started(): number {
    return this.slots.length;
  }

  /** Runs the steps (compiled cancellable) in a thread; rejects 503 when the time is up or too many wait. */
  async run(steps: readonly ReadStep[], owner?: string): Promise<StepResult[]> {
    const [outcome] = await this.runTogether([steps], owner);
    if (outcome === undefined) throw new Error('a read thread gave no outcome');
    if (!outcome.ok) throw outcome.error;
    return outcome.results;
  }

  /**
   * Runs several reads in one job of one thread, so in one read transaction (one snapshot): a batch's
   * GETs. Each read's own failure is its outcome; the deadline, the queue limits and a failed thread
   * reject the whole job. An owner's jobs wait their turn among the other owners' (see `next`), and at
   * most `maxQueuedPerOwner` of them wait at once.
   */
  runTogether(reads: readonly (readonly ReadStep[])[], owner?: string): Promise<ReadOutcome[]> {
    if (this.closed) return Promise.reject(new Error('read pool closed'));
    const perOwner = this.options.maxQueuedPerOwner;
    if (owner !== undefined && perOwner !== undefined) {
      let waiting = 0;
      for (const j of this.queue) if (j.owner === owner && !j.settled) waiting++;
      if (waiting >= perOwner) {
        return Promise.reject(
          new UserRequestLimitError(`User ${owner} has ${waiting} large reads waiting for a read thread (${limitSetting('userQueuedReads')}); send fewer at once.`, this.retryAfter()),
        );
      }
    }
    const busy = this.slots.length >= this.options.threads && this.slots.every((s) => s.job !== undefined);
    if (busy && this.queue.length >= this.options.maxQueued) {
      return Promise.reject(
        new ServiceUnavailableError(
          `The service is busy with other large reads (${this.options.maxQueued} waiting, ${limitSetting('maxQueuedReads')}); try again shortly.`,
          this.retryAfter(),
        ),
      );
    }
    return new Promise<ReadOutcome[]>((resolve, reject) => {
      const job: Job = { id: this.nextId++, owner, reads, deadline: Date.now() + this.options.timeoutMs, resolve, reject, settled: false };
      job.timer = setTimeout(() => this.expire(job), this.options.timeoutMs);
      job.timer.unref();
      this.queue.push(job);
      this.dispatch();
    });
  }

  /**
   * Stops every thread; queued jobs fail. A thread inside a statement stops only when the statement
   * gives control back (terminate cannot interrupt SQLite), so this waits at most `waitMs` for each.
   */
  async close(waitMs = 1000): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) this.settle(job, undefined, new Error('read pool closed'));
    const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());
    await Promise.all(this.slots.splice(0).map((s) => Promise.race([s.worker.terminate(), wait(waitMs)])));
  }

  private retryAfter(): number {
    return Math.max(1, Math.ceil(this.options.timeoutMs / 1000));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.job === undefined);
      if (slot === undefined && this.slots.length < this.options.threads) slot = this.start();
      if (slot === undefined) return;
      const job = this.next();
      if (job.settled) continue;
      slot.job = job;
      const message: WorkerJob = { id: job.id, reads: job.reads, deadline: job.deadline };
      slot.worker.postMessage(message);
    }
  }

  /**
   * Takes the next job off the queue, owners in turn (db/owner-turns.ts), so one user's many large reads take
   * turns with another's one instead of going first (jobs without an owner count as one owner).
   */
  private next(): Job {
    return this.turns.take(this.queue);
  }

  private start(): Slot {
    const worker = new Worker(workerScript(), {
      workerData: { file: this.options.file },
      // A thread's heap is bounded: a read that would exhaust it ends the thread, not the process.
      resourceLimits: { maxOldGenerationSizeMb: 192, maxYoungGenerationSizeMb: 8 },
    });
    const slot: Slot = { worker, job: undefined };
    worker.unref();
    worker.on('message', (reply: WorkerReply) => this.reply(slot, reply));
    worker.on('error', (e) => this.crashed(slot, e));
    worker.on('exit', (code) => this.crashed(slot, new Error(`read thread exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }

  private reply(slot: Slot, reply: WorkerReply): void {
    const job = slot.job;
    slot.job = undefined;
    if (slot.watchdog !== undefined) clearTimeout(slot.watchdog);
    slot.watchdog = undefined;
    if (job !== undefined && job.id === reply.id) {
      if ('outcomes' in reply) this.settle(job, reply.outcomes.map((o): ReadOutcome => ('results' in o ? { ok: true, results: o.results as StepResult[] } : { ok: false, error: fromWorker(o.error) })));
      else if ('cancelled' in reply) this.settle(job, undefined, this.timeout());
      else this.settle(job, undefined, fromWorker(reply.error));
    }
    this.dispatch();
  }

  private crashed(slot: Slot, e: Error): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    if (slot.watchdog !== undefined) clearTimeout(slot.watchdog);
    if (slot.job !== undefined) {
      this.log.error({ err: e }, 'read thread failed');
      this.settle(slot.job, undefined, new ServiceUnavailableError('The read ran out of memory or failed in its thread and was cancelled; narrow it with $filter, $select or $top.', this.retryAfter()));
    }
    if (!this.closed) this.dispatch();
  }

  private timeout(): ServiceUnavailableError {
    return readTimeoutError(this.options.timeoutMs);
  }

  /** The deadline passed: answer now; the thread's own check ends the statement, the watchdog ends a stuck thread. */
  private expire(job: Job): void {
    if (job.settled) return;
    this.settle(job, undefined, this.timeout());
    const slot = this.slots.find((s) => s.job === job);
    if (slot === undefined) {
      const i = this.queue.indexOf(job);
      if (i >= 0) this.queue.splice(i, 1); // it never ran
      return;
    }
    slot.watchdog = setTimeout(() => {
      if (slot.job !== job) return;
      this.log.warn({ jobId: job.id }, 'read thread overran its deadline; replacing it');
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      void slot.worker.terminate();
      this.dispatch();
    }, this.options.graceMs ?? 2000);
    slot.watchdog.unref();
  }

  private settle(job: Job, outcomes: ReadOutcome[] | undefined, error?: unknown): void {
    if (job.settled) return;
    job.settled = true;
    if (job.timer !== undefined) clearTimeout(job.timer);
    if (error !== undefined) job.reject(error);
    else job.resolve(outcomes as ReadOutcome[]);
  }
}

/** An error from a thread as the event loop raises it: an ODataError keeps its status and code. */
function fromWorker(e: WorkerError): Error {
  return e.status !== undefined && e.code !== undefined ? new ODataError(e.status, e.code, e.message, e.target) : new Error(`read thread: ${e.message}`);
}
