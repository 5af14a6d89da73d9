/**
 * The storage seam (issue 17; Kysely's `Dialect`): one object per database engine that the rest of
 * the service receives through its context, holding everything that differs between engines: the SQL
 * dialect of the query layer, the driver, DDL and migrations, error mapping and value conversion. No
 * module outside an engine's folder imports a concrete engine; they use `svc.engine`.
 */
import type { Dialect } from '../sql/dialect.js';

/** The engines the service runs on. */
export type EngineName = 'sqlite' | 'postgres';

/** A database engine (see the file comment). */
export interface Engine {
  readonly name: EngineName;
  /** The SQL the query layer builds for this engine (sql/dialect.ts). */
  readonly dialect: Dialect;
}
