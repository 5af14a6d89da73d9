/**
 * Shares the fair-use window between instances (core/fair-use.ts, store/user-request-reports.ts):
 * about once a second it takes the others' sums and, while it has requests in its window (and once
 * more after, to take its report back), reports its own counts in the same transaction. A database error skips a
 * report and is logged once a minute; fair use then counts this instance alone until the next one.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Engine } from '../db/engine.js';
import { exchangeUserRequestCounts, othersUserRequestCounts, withdrawUserRequestCounts } from '../store/user-request-reports.js';
import type { FairUse } from './fair-use.js';

/** How often an instance reports, ms. */
export const FAIR_USE_REPORT_MS = 1000;

export class FairUseSharing {
  private readonly instance = `${process.pid}-${randomUUID()}`;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private reported = false;
  private lastError = 0;

  constructor(
    private readonly fairUse: FairUse,
    private readonly engine: Pick<Engine, 'transaction' | 'dialect' | 'db'>,
    private readonly log: Pick<Logger, 'warn'>,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.report(), FAIR_USE_REPORT_MS).unref();
  }

  /** One report: this instance's counts out, the others' sums in. */
  report(): Promise<void> {
    if (this.running !== undefined) return this.running;
    const counts = this.fairUse.windowCounts();
    // Nothing to report or take back: read the others' reports without a write transaction.
    const exchanged =
      counts.size === 0 && !this.reported ? othersUserRequestCounts(this.engine, this.instance, this.now()) : exchangeUserRequestCounts(this.engine, this.instance, counts, this.now());
    this.running = exchanged
      .then((others) => {
        this.fairUse.othersInWindow(others);
        this.reported = counts.size > 0;
      })
      .catch((e: unknown) => {
        if (this.now() - this.lastError >= 60_000) {
          this.lastError = this.now();
          this.log.warn({ err: e }, 'fair use: could not exchange request counts with the other instances');
        }
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** Stops reporting and takes this instance's report back. */
  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    if (this.reported) await withdrawUserRequestCounts(this.engine, this.instance).catch(() => undefined);
    this.reported = false;
  }
}
