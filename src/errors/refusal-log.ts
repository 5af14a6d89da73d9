/**
 * The error log of 503s (requests refused while the database cannot be reached, is busy with other
 * writers, or a read passed its deadline). Every request already has its access line (status and
 * request id, http/express-app.ts); what the error log adds is the cause. During an outage or under
 * overload that cause is the same for thousands of requests, so each kind (the error's code and
 * message) is logged with its error at once, and the ones like it in the next minute are counted and
 * logged as one line when that minute ends (another minute follows while they go on); a minute with
 * none ends the run, and the next one is logged at once again. No clock is read, only timers, which
 * do not keep the process alive (counts still pending when it exits are not logged). A 500 (a bug) is
 * always logged whole, by the caller.
 */
import type { Logger } from 'pino';

/** The length of a counting window. */
const WINDOW_MS = 60_000;

/**
 * Kinds counted at once, at most (they are few: fixed messages and codes). A kind beyond is logged
 * every time, so memory stays bounded and nothing is hidden.
 */
const MAX_KINDS = 100;

interface Window {
  /** Refusals of the kind since its last line. */
  count: number;
  /** The latest of them, for the line that counts them. */
  err: unknown;
  correlationId: string;
}

/** Runs `fn` after `ms` without keeping the process alive. */
function unrefTimeout(fn: () => void, ms: number): void {
  setTimeout(fn, ms).unref();
}

/** Throttles the 503 lines of one service (see the file comment). */
export class RefusalLog {
  private readonly windows = new Map<string, Window>();

  /**
   * @param log where the lines go
   * @param schedule runs a window's end later (tests pass their own)
   */
  constructor(
    private readonly log: Logger,
    private readonly schedule: (fn: () => void, ms: number) => void = unrefTimeout,
  ) {}

  /** A request was refused with a 503 because of `err`. */
  refused(err: unknown, correlationId: string): void {
    const kind = errorKind(err);
    const open = this.windows.get(kind);
    if (open !== undefined) {
      open.count++;
      open.err = err;
      open.correlationId = correlationId;
      return;
    }
    this.log.error({ err, correlationId }, 'request refused (503)');
    if (this.windows.size >= MAX_KINDS) return;
    this.windows.set(kind, { count: 0, err, correlationId });
    this.schedule(() => this.close(kind), WINDOW_MS);
  }

  /** The end of a kind's window: one line for the refusals it counted, and another window; none ends the run. */
  private close(kind: string): void {
    const window = this.windows.get(kind);
    if (window === undefined) return;
    if (window.count === 0) {
      this.windows.delete(kind);
      return;
    }
    this.log.error({ err: window.err, correlationId: window.correlationId, refused: window.count }, `request refused (503): ${window.count} more for the same cause in the last ${WINDOW_MS / 1000} s`);
    window.count = 0;
    this.schedule(() => this.close(kind), WINDOW_MS);
  }
}

/**
 * An error's kind: its code (a SQLSTATE, ECONNREFUSED) with its message, so that two causes with one
 * code stay apart: every 503 the service raises itself has the code Internal_ServiceUnavailable. (The
 * webhook worker's util/repeated-failure.ts groups by code alone: one loop polling one server.)
 */
function errorKind(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  return typeof code === 'string' || typeof code === 'number' ? `${code} ${message}` : message;
}
