/**
 * Jest global teardown: removes the run's temporary directory (test/run-temp-dir.mjs), stops the
 * embedded PostgreSQL server of global-setup.mjs and removes its directory.
 */
import { rmSync } from 'node:fs';
import { removeRunTempDir } from '../run-temp-dir.mjs';

export default async function globalTeardown() {
  removeRunTempDir();
  const pg = globalThis.__ecnPostgres;
  if (pg === undefined) return;
  globalThis.__ecnPostgres = undefined;
  try {
    await pg.server.stop();
  } finally {
    rmSync(pg.dir, { recursive: true, force: true });
  }
}
