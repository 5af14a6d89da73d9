/** Jest global teardown: stops the embedded PostgreSQL server of global-setup.mjs and removes its directory. */
import { rmSync } from 'node:fs';

export default async function globalTeardown() {
  const pg = globalThis.__ecnPostgres;
  if (pg === undefined) return;
  globalThis.__ecnPostgres = undefined;
  try {
    await pg.server.stop();
  } finally {
    rmSync(pg.dir, { recursive: true, force: true });
  }
}
