/**
 * Opens the engine `--db` names (conventions §10; database-location.ts reads it). PostgreSQL's
 * driver is loaded only when asked for, so the embedded default does not pay for it.
 */
import type { Logger } from 'pino';
import type { Engine, EngineLimits } from './engine.js';
import { openSqliteEngine } from './sqlite/sqlite-engine.js';
import { parseDatabaseLocation } from './database-location.js';
import { assertNever } from '../util/assert-never.js';

/** Settings of one engine only. */
export interface EngineOptions {
  /** PostgreSQL: the most pooled connections (default 10). */
  readonly connections?: number;
  /** PostgreSQL: the read replicas' URLs (`serve --read-replica`, conventions §13). */
  readonly readReplicas?: readonly string[];
}

/** Opens the engine `--db` names (a SQLite file is created when missing). */
export async function openEngine(location: string, limits: EngineLimits, log: Logger, options: EngineOptions = {}): Promise<Engine> {
  const where = parseDatabaseLocation(location);
  switch (where.kind) {
    case 'sqlite':
      // The command line refuses it first (serve --db-connections); this guards other callers.
      if (options.connections !== undefined) throw new Error('a connection count is for PostgreSQL');
      if ((options.readReplicas ?? []).length > 0) throw new Error('read replicas are for PostgreSQL');
      return openSqliteEngine(where.file, limits, log);
    case 'postgres': {
      const { openPostgresEngine } = await import('./postgres/postgres-engine.js');
      return openPostgresEngine(where.url, limits, options.connections, options.readReplicas, log);
    }
    default:
      return assertNever(where, 'database location');
  }
}
