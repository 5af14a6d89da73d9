/**
 * Read threads (conventions §11: no request may delay the others), on every engine: a read the cost
 * model flags as expensive runs on a thread with its own connections while the event loop goes on
 * serving. On SQLite because better-sqlite3 runs a statement synchronously on the calling thread
 * (db/sqlite/sqlite-read-worker.ts); on PostgreSQL because receiving a large answer (parsing its rows,
 * joining its page) is the process's work, not the server's (db/postgres/postgres-read-worker.ts).
 * Each job has a deadline: it is answered 503 with Retry-After when the deadline passes (queued or
 * running), and the thread ends its statement itself. A thread that does not come back soon after (busy
 * where no check runs) is let go and replaced: terminate() stops it once its statement gives control
 * back, and the pool does not wait for that. Waiting jobs are taken owner by owner (owner-turns.ts).
 * Threads start on first use, so a service whose reads all stay on the event loop has none.
 */
import { Worker } from 'node:worker_threads';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { ODataError, ServiceUnavailableError, UserRequestLimitError } from '../errors/odata-error.js';
import { limitSetting } from '../edm/service-limits.js';
import { readTimeoutError, type ReadOutcome, type ReadStep, type StepResult } from './read-steps.js';
import type { WorkerClose, WorkerError, WorkerJob, WorkerReply } from './read-thread-protocol.js';
import { OwnerTurns } from './owner-turns.js';

/**
 * The compiled script `name` beside the module at `moduleUrl` (its import.meta.url). Beside it when it
 * runs compiled; the tests run the sources, and threads load compiled code only: then the same place
 * under dist/ (npm test builds it first).
 */
export function workerScript(moduleUrl: string, name: string): URL {
  const here = path.dirname(fileURLToPath(moduleUrl));
  const sibling = path.join(here, name);
  if (fs.existsSync(sibling)) return new URL(`file://${sibling}`);
  for (let dir = here; ; ) {
    const candidate = path.join(dir, 'dist', path.relative(dir, here), name);
    if (fs.existsSync(candidate)) return new URL(`file://${candidate}`);
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`${name} not found: run npm run build`);
    dir = parent;
  }
}

interface Job {
  readonly id: number;
  /** Who asked (a user id), or undefined: the queue is shared fairly among owners. */
  readonly owner: string | undefined;
  readonly reads: readonly (readonly ReadStep[])[];
  readonly target: number;
  readonly deadline: number;
  readonly resolve: (r: ReadOutcome[]) => void;
  readonly reject: (e: unknown) => void;
  timer?: NodeJS.Timeout;
  settled: boolean;
}

interface Slot {
  readonly worker: Worker;
  readonly jobs: Set<Job>;
  /** Terminates the thread if an expired job does not come back this long after its deadline. */
  watchdog?: NodeJS.Timeout;
}

/** Settings of a pool. */
export interface ReadThreadOptions {
  /** The thread's script (workerScript) and what it is given. */
  readonly script: URL;
  readonly workerData: unknown;
  readonly threads: number;
  /** Jobs one thread runs at once (default 1: SQLite runs one statement at a time). */
  readonly jobsPerThread?: number;
  readonly maxQueued: number;
  /** Jobs one owner may have waiting; more is a 429 (limits.userQueuedReads). */
  readonly maxQueuedPerOwner?: number;
  readonly timeoutMs: number;
  /** How long a thread may overrun a deadline before it is replaced, ms. */
  readonly graceMs?: number;
  /**
   * false: the deadline ends a job only while it waits; once running, the thread bounds it (PostgreSQL:
   * each statement's statement_timeout, as on the event loop). Default true: the whole job (SQLite).
   */
  readonly runningDeadline?: boolean;
  /** The error a driver's error from a thread stands for on this thread (default: a plain Error). */
  readonly driverError?: (e: Extract<WorkerError, { kind: 'driver' }>) => Error;
}

/** A pool of read threads (see the file comment). */
export class ReadThreadPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private readonly turns = new OwnerTurns();
  private readonly perThread: number;

  constructor(
    private readonly options: ReadThreadOptions,
    private readonly log: Logger,
  ) {
    this.perThread = Math.max(1, options.jobsPerThread ?? 1);
  }

  /** Threads running now (started on first use; a replaced one counts once). */
  get started(): number {
    return this.slots.length;
  }

  /** Jobs running and waiting now. */
  get load(): { running: number; waiting: number } {
    let running = 0;
    for (const s of this.slots) running += s.jobs.size;
    return { running, waiting: this.queue.length };
  }

  /** Runs the steps in a thread; rejects 503 when the time is up or too many wait. */
  async run(steps: readonly ReadStep[], owner?: string, target = 0): Promise<StepResult[]> {
    const [outcome] = await this.runTogether([steps], owner, target);
    if (outcome === undefined) throw new Error('a read thread gave no outcome');
    if (!outcome.ok) throw outcome.error;
    return outcome.results;
  }

  /**
   * Runs several reads in one job of one thread, so in one snapshot: a batch's GETs. Each read's own
   * failure is its outcome; the deadline, the queue limits and a failed thread reject the whole job. An
   * owner's jobs wait their turn among the other owners' (see `next`), and at most `maxQueuedPerOwner`
   * of them wait at once.
   */
  runTogether(reads: readonly (readonly ReadStep[])[], owner?: string, target = 0): Promise<ReadOutcome[]> {
    if (this.closed) return Promise.reject(new Error('read threads closed'));
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
    if (this.free() === undefined && this.slots.length >= this.options.threads && this.queue.length >= this.options.maxQueued) {
      return Promise.reject(
        new ServiceUnavailableError(
          `The service is busy with other large reads (${this.options.maxQueued} waiting, ${limitSetting('maxQueuedReads')}); try again shortly.`,
          this.retryAfter(),
        ),
      );
    }
    return new Promise<ReadOutcome[]>((resolve, reject) => {
      const job: Job = { id: this.nextId++, owner, reads, target, deadline: Date.now() + this.options.timeoutMs, resolve, reject, settled: false };
      job.timer = setTimeout(() => this.expire(job), this.options.timeoutMs);
      job.timer.unref();
      this.queue.push(job);
      this.dispatch();
    });
  }

  /**
   * Stops every thread; queued jobs fail. Each thread is asked to close its connections and given
   * `waitMs` to end; then it is terminated (a SQLite thread inside a statement stops only when the
   * statement gives control back).
   */
  async close(waitMs = 1000): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) this.settle(job, undefined, new Error('read threads closed'));
    const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());
    await Promise.all(
      this.slots.splice(0).map(async (s) => {
        if (s.watchdog !== undefined) clearTimeout(s.watchdog);
        for (const job of s.jobs) this.settle(job, undefined, new Error('read threads closed'));
        const exited = new Promise<void>((resolve) => s.worker.once('exit', () => resolve()));
        const close: WorkerClose = { close: true };
        s.worker.postMessage(close);
        await Promise.race([exited, wait(waitMs)]);
        await Promise.race([s.worker.terminate(), wait(waitMs)]);
      }),
    );
  }

  private retryAfter(): number {
    return Math.max(1, Math.ceil(this.options.timeoutMs / 1000));
  }

  /** A thread with room for a job now. */
  private free(): Slot | undefined {
    return this.slots.find((s) => s.jobs.size < this.perThread);
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.free();
      if (slot === undefined && this.slots.length < this.options.threads) slot = this.start();
      if (slot === undefined) return;
      const job = this.next();
      if (job.settled) continue;
      slot.jobs.add(job);
      const message: WorkerJob = { id: job.id, reads: job.reads, deadline: job.deadline, target: job.target };
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
    const worker = new Worker(this.options.script, {
      workerData: this.options.workerData,
      // A thread's heap is bounded: a read that would exhaust it ends the thread, not the process.
      resourceLimits: { maxOldGenerationSizeMb: 192, maxYoungGenerationSizeMb: 8 },
    });
    const slot: Slot = { worker, jobs: new Set() };
    worker.unref();
    worker.on('message', (reply: WorkerReply) => this.reply(slot, reply));
    worker.on('error', (e) => this.crashed(slot, e));
    worker.on('exit', (code) => this.crashed(slot, new Error(`read thread exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }

  private reply(slot: Slot, reply: WorkerReply): void {
    let job: Job | undefined;
    for (const j of slot.jobs) if (j.id === reply.id) job = j;
    if (job !== undefined) {
      slot.jobs.delete(job);
      if ('outcomes' in reply) this.settle(job, reply.outcomes.map((o): ReadOutcome => ('results' in o ? { ok: true, results: o.results as StepResult[] } : { ok: false, error: this.fromWorker(o.error) })));
      else if ('cancelled' in reply) this.settle(job, undefined, this.timeout());
      else this.settle(job, undefined, this.fromWorker(reply.error));
    }
    if (slot.watchdog !== undefined && ![...slot.jobs].some((j) => j.settled)) {
      clearTimeout(slot.watchdog);
      slot.watchdog = undefined;
    }
    this.dispatch();
  }

  private crashed(slot: Slot, e: Error): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    if (slot.watchdog !== undefined) clearTimeout(slot.watchdog);
    if (slot.jobs.size > 0) {
      this.log.error({ err: e }, 'read thread failed');
      for (const job of slot.jobs) {
        this.settle(job, undefined, new ServiceUnavailableError('The read ran out of memory or failed in its thread and was cancelled; narrow it with $filter, $select or $top.', this.retryAfter()));
      }
    }
    if (!this.closed) this.dispatch();
  }

  private timeout(): ServiceUnavailableError {
    return readTimeoutError(this.options.timeoutMs);
  }

  /** The deadline passed: answer now; the thread's own check ends the statement, the watchdog ends a stuck thread. */
  private expire(job: Job): void {
    if (job.settled) return;
    const slot = this.slots.find((s) => s.jobs.has(job));
    if (slot !== undefined && this.options.runningDeadline === false) return;
    this.settle(job, undefined, this.timeout());
    if (slot === undefined) {
      const i = this.queue.indexOf(job);
      if (i >= 0) this.queue.splice(i, 1); // it never ran
      return;
    }
    if (slot.watchdog !== undefined) return;
    slot.watchdog = setTimeout(() => {
      slot.watchdog = undefined;
      if (![...slot.jobs].some((j) => j.settled)) return;
      this.log.warn({ jobId: job.id }, 'read thread overran its deadline; replacing it');
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      for (const other of slot.jobs) this.settle(other, undefined, this.timeout());
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

  /** An error from a thread as this thread raises it: an ODataError keeps its status, code and headers. */
  private fromWorker(e: WorkerError): Error {
    if (e.kind === 'odata') return new ODataError(e.status, e.code, e.message, e.target, undefined, e.headers);
    return this.options.driverError?.(e) ?? new Error(`read thread: ${e.message}`);
  }
}
