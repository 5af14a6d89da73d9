/**
 * What read threads (db/read-thread-pool.ts) and the event loop's thread say to each other, on every
 * engine (db/sqlite/sqlite-read-worker.ts, db/postgres/postgres-read-worker.ts): a job of one read or
 * several, one outcome per read, and errors as plain data that the event loop raises again as they were
 * raised in the thread. A large page crosses as bytes in a transferred buffer, not as a copy.
 */
import type { ReadStep, StepResult } from './read-steps.js';
import { ODataError } from '../errors/odata-error.js';

/** A job from the pool: the steps of one read or more, which see one snapshot. */
export interface WorkerJob {
  readonly id: number;
  readonly reads: readonly (readonly ReadStep[])[];
  /** Epoch ms after which the statements fail. */
  readonly deadline: number;
  /** Which of the thread's databases the reads run on (PostgreSQL: 0 the primary, then each replica). */
  readonly target: number;
}

/** Sent instead of a job: the thread closes its connections and ends. */
export interface WorkerClose {
  readonly close: true;
}

/**
 * An error as it crosses to the event loop's thread: an ODataError keeps its status, code and headers
 * (Retry-After); a driver's error its SQLSTATE or socket code and severity, so the engine maps it as it
 * maps the same error on the event loop.
 */
export type WorkerError =
  | {
      readonly kind: 'odata';
      readonly status: number;
      readonly code: string;
      readonly message: string;
      readonly target?: string;
      readonly headers?: Readonly<Record<string, string | readonly string[]>>;
    }
  | { readonly kind: 'driver'; readonly message: string; readonly code?: string; readonly severity?: string };

/** How one read of a job ended. */
export type WorkerOutcome = { readonly results: readonly StepResult[] } | { readonly error: WorkerError };

/** What the thread answers. */
export type WorkerReply =
  | { readonly id: number; readonly outcomes: readonly WorkerOutcome[] }
  | { readonly id: number; readonly cancelled: true }
  | { readonly id: number; readonly error: WorkerError };

/** A thrown value as data (see WorkerError). */
export function workerError(e: unknown): WorkerError {
  if (e instanceof ODataError) return { kind: 'odata', status: e.status, code: e.code, message: e.message, ...(e.target === undefined ? {} : { target: e.target }), ...(e.headers === undefined ? {} : { headers: e.headers }) };
  const code = (e as { code?: unknown } | null)?.code;
  const severity = (e as { severity?: unknown } | null)?.severity;
  return {
    kind: 'driver',
    message: e instanceof Error ? e.message : String(e),
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof severity === 'string' ? { severity } : {}),
  };
}

/** Pages past this many characters cross as bytes (below it, a copy of the text costs less than encoding it). */
const BYTES_FROM = 65_536;

/** A large page as UTF-8 bytes in a buffer added to `transfer`: moved, not copied, to the event loop's thread. */
export function transferable(r: StepResult, transfer: ArrayBuffer[]): StepResult {
  if (r.kind !== 'page' || typeof r.entities !== 'string' || r.entities.length < BYTES_FROM) return r;
  const bytes = Buffer.from(r.entities, 'utf8');
  const own = bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length ? bytes : Buffer.from(bytes);
  transfer.push(own.buffer as ArrayBuffer);
  return { ...r, entities: new Uint8Array(own.buffer, 0, own.length) };
}

/** Thrown in a thread when a job's deadline passed: the job is answered `cancelled` (the deadline's 503). */
export class DeadlinePassed extends Error {
  constructor() {
    super('deadline passed');
  }
}
