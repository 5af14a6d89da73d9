/**
 * The decisions about read replicas, on plain data (postgres-replicas.ts gathers the data): a replica's
 * state and lag from one probe, and which replica answers the next read.
 *
 * Lag is how old the newest data a replica is missing may be. A probe reads the primary's WAL position
 * first (at `probedAt`), then the replica's replay position: a replica that has replayed up to it
 * misses nothing the primary had then (lag 0, and `caughtUpAt` moves to `probedAt`). Otherwise the
 * replica misses something newer than either its last replayed commit or its last caught-up probe, so
 * its lag is at most the younger of the two ages. The commit's age alone would call a replica that is
 * a moment behind after an idle hour an hour behind; the caught-up probe alone would not show a
 * replica that stopped between probes.
 */
import type { ReplicaStatus } from '../engine.js';

/** A replica's state (ReplicaStatus). */
export type ReplicaState = ReplicaStatus['state'];

/** What a probe of a replica found (LAG_SQL of postgres-replicas.ts). */
export interface LagSample {
  /** The server is in recovery (a standby); a promoted or unrelated server answers no reads. */
  readonly standby: boolean;
  /** It has replayed the primary's WAL up to the position read just before (or, with no such position, all it received). */
  readonly caughtUp: boolean;
  /** The age of its last replayed commit by its clock, ms; null before it replayed any. */
  readonly replayAgeMs: number | null;
}

/** A replica's state and lag after a probe. */
export interface Judgement {
  readonly state: ReplicaState;
  readonly lagMs: number | null;
  /** When it was last known to miss nothing (Date.now() of the probe's start), if ever. */
  readonly caughtUpAt: number | undefined;
}

/**
 * Judges one probe: `sample` undefined when the replica did not answer (an error, or no answer in time).
 * `probedAt` is when the probe read the primary's position, `now` when the replica answered.
 */
export function judgeReplica(sample: LagSample | undefined, probedAt: number, now: number, caughtUpAt: number | undefined, maxLagMs: number): Judgement {
  if (sample === undefined || !sample.standby) return { state: 'down', lagMs: null, caughtUpAt };
  if (sample.caughtUp) return { state: 'ok', lagMs: 0, caughtUpAt: probedAt };
  const bounds = [sample.replayAgeMs ?? Infinity, caughtUpAt === undefined ? Infinity : now - caughtUpAt];
  const lag = Math.max(0, Math.min(...bounds));
  if (!Number.isFinite(lag)) return { state: 'lagging', lagMs: null, caughtUpAt };
  return { state: lag > maxLagMs ? 'lagging' : 'ok', lagMs: Math.round(lag), caughtUpAt };
}

/**
 * The replica that answers the next read: round robin from `next` over those `ok`; undefined when none
 * is (the primary answers).
 */
export function pickReplica(states: readonly ReplicaState[], next: number): number | undefined {
  for (let i = 0; i < states.length; i++) {
    const at = (next + i) % states.length;
    if (states[at] === 'ok') return at;
  }
  return undefined;
}
