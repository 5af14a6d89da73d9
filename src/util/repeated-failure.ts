/**
 * The log of a failure that repeats at every run of a loop (a background poll while its database is
 * down): the first failure is logged with its error, repeats of the same error (its code, or its
 * message) at most once a minute with how many there were and since when, another error at once, and
 * the first success after them once, so an outage is a few lines in the log, not one stack a second,
 * and neither a new kind of failure nor the end of the outage is hidden.
 */
import type { Logger } from 'pino';

/** Logs the failures and the recovery of one loop (see the file comment). */
export class RepeatedFailure {
  private since: number | undefined;
  private failures = 0;
  private lastLogged = 0;
  /** The kind of the last error logged (errorKind). */
  private lastError = '';

  /**
   * @param message what failed, for example 'webhook delivery tick failed'
   * @param everyMs the least time between two lines of one run of failures
   * @param now the clock (tests)
   */
  constructor(
    private readonly log: Logger,
    private readonly message: string,
    private readonly everyMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The loop failed this time. */
  failed(err: unknown): void {
    const t = this.now();
    this.failures++;
    const kind = errorKind(err);
    if (this.since === undefined || kind !== this.lastError) {
      this.since ??= t;
      this.lastLogged = t;
      this.lastError = kind;
      this.log.error({ err }, this.message);
      return;
    }
    if (t - this.lastLogged < this.everyMs) return;
    this.lastLogged = t;
    this.log.error({ err, failures: this.failures, sinceMs: t - this.since }, `${this.message}: still failing, ${this.failures} times in ${seconds(t - this.since)}`);
  }

  /** The loop ran without failing. */
  succeeded(): void {
    if (this.since === undefined) return;
    const ms = this.now() - this.since;
    this.log.info({ failures: this.failures, ms }, `${this.message} ${this.failures === 1 ? 'once' : `${this.failures} times`} in ${seconds(ms)}; it works again`);
    this.since = undefined;
    this.failures = 0;
  }
}

/** An error's kind for telling repeats apart: its code (ECONNREFUSED, a SQLSTATE), or its message. */
function errorKind(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' || typeof code === 'number') return `code ${code}`;
  return err instanceof Error ? err.message : String(err);
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}
