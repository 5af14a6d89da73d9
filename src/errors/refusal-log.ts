/**
 * The error log of 503s (requests refused while the database cannot be reached, is busy with other
 * writers, or a read passed its deadline). Every request already has its access line (status and
 * request id, http/express-app.ts); what the error log adds is the cause. During an outage or under
 * overload that cause is the same for thousands of requests, so each kind (the error's code, else its
 * message) is logged with its error the first time, then at most once a minute with how many more
 * there were, and again at once after a quiet minute (with the count of the earlier run's last
 * repeats, which no line had told). A 500 (a bug) is always logged whole.
 */
import type { Logger } from 'pino';

/** The least time between two lines of one kind. */
const EVERY_MS = 60_000;

/** Kinds tracked at most (their number is small: fixed messages and codes); beyond, the oldest goes. */
const MAX_KINDS = 100;

interface KindState {
  /** When it was last logged. */
  logged: number;
  /** When it last happened. */
  last: number;
  /** How many happened since it was last logged. */
  since: number;
}

/** Throttles the 503 lines of one logger (see the file comment). */
export class RefusalLog {
  private readonly kinds = new Map<string, KindState>();

  constructor(
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** A request was refused with a 503 because of `err`. */
  refused(err: unknown, correlationId: string): void {
    const t = this.now();
    const kind = errorKind(err);
    const state = this.kinds.get(kind);
    if (state === undefined || t - state.last >= EVERY_MS) {
      this.kinds.delete(kind);
      if (this.kinds.size >= MAX_KINDS) this.kinds.delete(this.kinds.keys().next().value as string);
      this.kinds.set(kind, { logged: t, last: t, since: 0 });
      // The ones of an earlier run after its last line are counted here rather than lost.
      const unlogged = state?.since ?? 0;
      this.log.error({ err, correlationId, ...(unlogged > 0 ? { earlierUnlogged: unlogged } : {}) }, 'request refused (503)');
      return;
    }
    state.last = t;
    state.since++;
    if (t - state.logged < EVERY_MS) return;
    this.log.error({ err, correlationId, refused: state.since }, `request refused (503): ${state.since} more for the same cause in ${Math.round((t - state.logged) / 1000)} s`);
    state.logged = t;
    state.since = 0;
  }
}

/** An error's kind: its code (a SQLSTATE, ECONNREFUSED) with its message, so that two causes with one code stay apart. */
function errorKind(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  return typeof code === 'string' || typeof code === 'number' ? `${code} ${message}` : message;
}

const logs = new WeakMap<Logger, RefusalLog>();

/** The RefusalLog of `log`. */
export function refusalLogOf(log: Logger): RefusalLog {
  let r = logs.get(log);
  if (r === undefined) logs.set(log, (r = new RefusalLog(log)));
  return r;
}
