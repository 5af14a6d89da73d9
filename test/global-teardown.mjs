/** Jest global teardown of test/global-setup.mjs: removes the run's temporary directory (test/run-temp-dir.mjs). */
import { removeRunTempDir } from './run-temp-dir.mjs';

export default function globalTeardown() {
  removeRunTempDir();
}
