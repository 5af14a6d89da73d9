/**
 * The read replicas of `serve --read-replica` (conventions §13): a pool per replica for the reads sent
 * with `Data-Access-Intent: ReadOnly` (postgres-replica-reads.ts), and a probe of each replica's lag
 * every PROBE_EVERY_MS on a connection of its own, so a busy replica's pool does not delay its probe.
 * PostgreSQL's streaming replication does the replicating; this only chooses where reads go. A replica
 * that lags past limits.maxReplicaLagMs, does not answer a probe in PROBE_TIMEOUT_MS, fails a read with
 * a connection error or is no standby answers no reads until a probe finds it well again.
 */
import { parse } from 'pg-connection-string';
import type { ReplicaStatus } from '../engine.js';
import type { CompiledQuery } from '../../sql/compile.js';
import { openPostgres, type PostgresDatabase } from './postgres-database.js';
import { isUnavailable } from './postgres-errors.js';
import { PostgresReads, type HeavyReads } from './postgres-reads.js';
import { judgeReplica, pickReplica, type LagSample, type ReplicaState } from './postgres-replica-state.js';

/** How often each replica's lag is read, ms: the contract asks for at least once a second. */
const PROBE_EVERY_MS = 500;
/** A probe not answered in this long finds the replica down, ms. */
const PROBE_TIMEOUT_MS = 1_000;

/** The primary's WAL position now. */
const PRIMARY_POSITION: CompiledQuery = { sql: 'SELECT pg_current_wal_lsn()::text AS "position"', params: [] };

/**
 * A replica's lag (postgres-replica-state.ts LagSample), given the primary's position or NULL when it is
 * not known (then: has it replayed all it received). 1 and 0 rather than booleans: the values come back
 * in the stored forms (postgres-types.ts).
 */
const LAG_SQL = `SELECT CASE WHEN pg_is_in_recovery() THEN 1 ELSE 0 END AS "standby",
  CASE WHEN COALESCE(pg_last_wal_replay_lsn() >= $1::pg_lsn, pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn()) THEN 1 ELSE 0 END AS "caughtUp",
  (extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS "replayAgeMs"`;

/** One replica: its pools, and its state as last judged. */
export class Replica {
  readonly reads: PostgresReads;
  state: ReplicaState = 'down';
  lagMs: number | null = null;
  caughtUpAt: number | undefined;
  /** A probe is in flight (one at a time; each settles within PROBE_TIMEOUT_MS). */
  probing = false;

  constructor(
    readonly host: string,
    readonly port: number,
    readonly database: PostgresDatabase,
    readonly monitor: PostgresDatabase,
    heavy: HeavyReads = {},
  ) {
    this.reads = new PostgresReads(database, () => undefined, heavy);
  }
}

/** Settings of the replicas' pools. */
export interface ReplicaOptions {
  /** Connections of each replica's read pool (as the primary's: postgres-read-threads.ts readConnections). */
  readonly readConnections?: number;
  /** Where the heavy reads of the replica `at` (0 the first) go: the engine's read threads. */
  readonly heavy?: (at: number) => HeavyReads;
  readonly statementTimeoutMs: number;
  readonly maxLagMs: number;
}

/** The replicas of one engine (see the file comment). */
export class PostgresReplicas {
  readonly replicas: readonly Replica[];
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;

  /** Opens a pool per URL (connections are made on first use) and starts probing. */
  constructor(
    private readonly primary: PostgresDatabase,
    urls: readonly string[],
    private readonly options: ReplicaOptions,
  ) {
    this.replicas = urls.map((url, at) => {
      const database = openPostgres(url, { statementTimeoutMs: options.statementTimeoutMs, ...(options.readConnections === undefined ? {} : { readConnections: options.readConnections }) });
      // One connection for the probes (the pool keeps one fewer than `max`, for writes it never makes here).
      const monitor = openPostgres(url, { statementTimeoutMs: PROBE_TIMEOUT_MS, max: 2 });
      const where = parse(url);
      return new Replica(where.host ?? 'localhost', Number(where.port ?? 5432), database, monitor, options.heavy?.(at));
    });
    this.timer = setInterval(() => this.tick(), PROBE_EVERY_MS);
    // Background work keeps no process alive on its own.
    this.timer.unref();
    this.tick();
  }

  /** The replica for the next read (round robin over those `ok`), or undefined: the primary answers. */
  pick(): Replica | undefined {
    const at = pickReplica(
      this.replicas.map((r) => r.state),
      this.next,
    );
    if (at === undefined) return undefined;
    this.next = at + 1;
    return this.replicas[at];
  }

  /** A read on `replica` failed with `error`: a server that cannot be reached is out until a probe finds it well. */
  failed(replica: Replica, error: unknown): void {
    if (isUnavailable(error)) {
      replica.state = 'down';
      replica.lagMs = null;
    }
  }

  /** For `/ready`. */
  status(): readonly ReplicaStatus[] {
    return this.replicas.map((r) => ({ host: r.host, port: r.port, state: r.state, lagMs: r.lagMs }));
  }

  /** Probes every replica, unless the last round is still reading the primary's position. */
  private tick(): void {
    if (this.ticking !== undefined) return;
    this.ticking = this.probeAll().finally(() => {
      this.ticking = undefined;
    });
  }

  private async probeAll(): Promise<void> {
    const probedAt = Date.now();
    const position = await answered(this.primary.get(PRIMARY_POSITION));
    const at = position === undefined || position === null ? null : String(position['position']);
    for (const replica of this.replicas) this.probe(replica, probedAt, at);
  }

  /** Reads one replica's lag and judges it; no answer in PROBE_TIMEOUT_MS finds it down. */
  private probe(replica: Replica, probedAt: number, position: string | null): void {
    if (replica.probing) return;
    replica.probing = true;
    void answered(replica.monitor.get({ sql: LAG_SQL, params: [position] })).then((row) => {
      replica.probing = false;
      if (this.timer === undefined) return;
      const sample: LagSample | undefined =
        row === undefined || row === null
          ? undefined
          : { standby: Number(row['standby']) === 1, caughtUp: Number(row['caughtUp']) === 1, replayAgeMs: row['replayAgeMs'] === null ? null : Number(row['replayAgeMs']) };
      this.judge(replica, sample, probedAt);
    });
  }

  private judge(replica: Replica, sample: LagSample | undefined, probedAt: number): void {
    const judged = judgeReplica(sample, probedAt, Date.now(), replica.caughtUpAt, this.options.maxLagMs);
    replica.state = judged.state;
    replica.lagMs = judged.lagMs;
    replica.caughtUpAt = judged.caughtUpAt;
  }

  /** Stops probing and closes every replica's connections. */
  async close(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
    await Promise.all(this.replicas.flatMap((r) => [r.database.close(), r.monitor.close()]));
  }
}

/**
 * The row a probe's statement gave; null for none, undefined when it failed or did not answer in
 * PROBE_TIMEOUT_MS (the statement goes on; its connection's statement_timeout ends it).
 */
function answered<T>(query: Promise<T | undefined>): Promise<T | null | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), PROBE_TIMEOUT_MS);
    query.then(
      (row) => {
        clearTimeout(timer);
        resolve(row ?? null);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });
}
