/**
 * Where a read runs (SQLite): on the event loop when the cost model expects little work, else in a
 * read thread with a deadline (sqlite-read-pool.ts). Reads on the event loop are the fast path (no thread hop,
 * the turn's shared snapshot); what they may cost is bounded by `limits.maxInlineRows`, priced with the
 * current table sizes. A class of reads (read-cost.ts costClass) that still gave a large answer on the
 * event loop (skewed data: one parent with thousands of children, which average fan-outs miss) runs in
 * a thread for a while after. The size of the answer is the measure, not the time it took: wall time on
 * a busy machine includes the time the process was not running, and sent plain pages to the threads.
 */
import { expectedWork, fullWork } from '../../query/read-cost.js';
import type { ReadRequest } from '../engine.js';
import { runSteps, type ReadStep, type StepResult } from '../read-steps.js';
import type { Database } from './sqlite-database.js';
import type { ReadPool } from './sqlite-read-pool.js';
import type { ReadCost } from '../../query/read-cost.js';
import type { ReadOutcome } from '../read-steps.js';
import { compile } from '../../sql/compile.js';
import { select } from '../../sql/build.js';
import type { SqlExpr } from '../../sql/nodes.js';
import { sqliteDialect } from './sqlite-dialect.js';

/**
 * A read on the event loop whose answer passed this many characters sends its class to the threads:
 * about 4,000 entities, 10-25 ms of writing them (read-cost.ts OUTPUT_WEIGHT).
 */
const LARGE_ANSWER = 1_000_000;
/** For this long. */
const SLOW_FOR_MS = 10 * 60_000;

/** Characters of text in the results (entity JSON, pages, row values). */
function answerSize(results: readonly StepResult[]): number {
  let n = 0;
  for (const r of results) {
    if (r.kind === 'page') n += r.entities.length;
    else if (r.kind === 'row') n += valuesSize(r.row);
    else for (const row of r.rows) n += valuesSize(row);
  }
  return n;
}

function valuesSize(row: Record<string, unknown> | undefined): number {
  let n = 0;
  if (row !== undefined) for (const k in row) {
    const v = row[k];
    if (typeof v === 'string') n += v.length;
  }
  return n;
}
/** Table sizes are read again after this long. */
const SIZE_TTL_MS = 10_000;

/** Runs reads on the event loop or in read threads (see the file comment). */
export class ReadExecutor {
  private readonly sizes = new Map<string, { rows: number; at: number }>();
  private readonly slow = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly pool: ReadPool | undefined,
    private readonly maxInlineRows: number,
  ) {}

  /** The results of the read's steps: at once on the event loop, or a promise from a read thread. */
  run(read: ReadRequest): StepResult[] | Promise<StepResult[]> {
    if (this.pool !== undefined && this.threaded(read.cost)) return this.pool.run(read.cancellable(), read.owner);
    return this.inline(read);
  }

  /**
   * Runs several reads so that they see one snapshot (a batch's GETs that follow one another): one
   * after the other on the event loop, in this turn's shared snapshot, when together they are expected
   * to cost no more than one read may there; else all of them in one job of one read thread (one read
   * transaction there), under one deadline. Each read's own failure is its outcome.
   */
  runTogether(reads: readonly ReadRequest[]): ReadOutcome[] | Promise<ReadOutcome[]> {
    if (this.pool !== undefined && this.threadedTogether(reads)) return this.pool.runTogether(reads.map((r) => r.cancellable()), reads[0]?.owner);
    return reads.map((r): ReadOutcome => {
      try {
        return { ok: true, results: this.inline(r) };
      } catch (error) {
        return { ok: false, error };
      }
    });
  }

  fullWork(reads: readonly ReadRequest[]): number {
    let work = 0;
    for (const r of reads) work += fullWork(r.cost, (t) => this.rowsOf(t));
    return work;
  }

  private inline(read: ReadRequest): StepResult[] {
    const results = runSteps(this.db, read.steps);
    if (this.pool !== undefined && answerSize(results) > LARGE_ANSWER) this.markSlow(read.cost.costClass);
    return results;
  }

  /**
   * true when reads run together go to a thread: one of them would alone, or their expected work adds
   * up past maxInlineRows (a batch of a hundred reads that are each cheap held the event loop for seconds).
   */
  threadedTogether(reads: readonly ReadRequest[]): boolean {
    let work = 0;
    for (const r of reads) {
      if (this.threaded(r.cost)) return true;
      work += expectedWork(r.cost, (t) => this.rowsOf(t));
    }
    return work > this.maxInlineRows;
  }

  /** true when the read goes to a thread: correlated, expected past maxInlineRows, or of a class seen answering large. */
  threaded(cost: ReadCost): boolean {
    if (cost.correlated) return true;
    if (this.slow.size > 0) {
      const until = this.slow.get(cost.costClass);
      if (until !== undefined) {
        if (until > Date.now()) return true;
        this.slow.delete(cost.costClass);
      }
    }
    return expectedWork(cost, (t) => this.rowsOf(t)) > this.maxInlineRows;
  }

  /** The rows of a table, roughly (its largest rowid: counts deleted rows too, never fewer), cached a while. */
  rowsOf(table: string): number {
    const now = Date.now();
    const known = this.sizes.get(table);
    if (known !== undefined && now - known.at < SIZE_TTL_MS) return known.rows;
    const max: SqlExpr = { kind: 'call', name: 'max', args: [sqliteDialect.rowOrder('t', 'rowid')] };
    const row = this.db.get(compile(select({ columns: [{ expr: max, alias: 'n' }], from: { kind: 'table', table, alias: 't' } }), sqliteDialect));
    const rows = Number(row?.['n'] ?? 0);
    this.sizes.set(table, { rows, at: now });
    return rows;
  }

  private markSlow(costClass: string): void {
    if (this.slow.size > 1000) this.slow.clear();
    this.slow.set(costClass, Date.now() + SLOW_FOR_MS);
  }
}
