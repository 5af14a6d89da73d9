/**
 * Jest global setup of the tier that needs no PostgreSQL server (jest.config.js):
 * only the run's temporary directory (test/run-temp-dir.mjs). test/postgres/global-setup.mjs is the one
 * of `npm run test:postgres`, which also starts the server.
 */
import { openRunTempDir } from './run-temp-dir.mjs';

export default function globalSetup() {
  openRunTempDir();
}
