/**
 * `serve --db-connections N` (src/cli/serve.ts): the most connections a process's PostgreSQL pool
 * opens, for a managed server whose connection limit the instances share. Under concurrent requests
 * the service opens no more than N, and still answers every request; out-of-range values and a
 * SQLite --db are refused with one line.
 */
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { BIN, startServeProcess, type ServeProcess } from '../../helpers/serve-process.js';
import { createEmptyDatabase, type EmptyDatabase } from '../../helpers/postgres.js';

let database: EmptyDatabase;
let server: ServeProcess;
beforeAll(async () => {
  database = await createEmptyDatabase('dbconn');
  server = await startServeProcess(['--db-connections', '3'], database.url);
});
afterAll(async () => {
  server.child.kill('SIGTERM');
  await new Promise((resolve) => server.child.once('exit', resolve));
  await database.drop();
});

test('32 concurrent reads through a pool of 3: all answered, never more than 3 connections from the service', async () => {
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  let most = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const r = await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'ecn-odata'`, [database.name]);
      most = Math.max(most, r.rows[0].n as number);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  try {
    const statuses = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        fetch(`${server.url}/engChangeNotices?$top=50&$skip=${i}&$filter=contains(number,'${i % 10}')`, { headers: { authorization: `Bearer ${server.token}` } }).then((r) => r.status),
      ),
    );
    expect(statuses).toEqual(Array.from({ length: 32 }, () => 200));
  } finally {
    sampling = false;
    await sampler;
    await admin.end();
  }
  expect(most).toBeGreaterThan(0);
  expect(most).toBeLessThanOrEqual(3);
});

test.each([
  [['--db-connections', '1', '--db', 'postgres://u:p@127.0.0.1:1/x'], /--db-connections takes a whole number from 2 to 1000, got '1'/],
  [['--db-connections', 'many', '--db', 'postgres://u:p@127.0.0.1:1/x'], /--db-connections takes a whole number from 2 to 1000, got 'many'/],
  [['--db-connections', '4', '--db', ':memory:'], /--db-connections is for a PostgreSQL --db; on SQLite, reads run on their own threads/],
])('serve %j: one line, exit 1', (args, message) => {
  const r = spawnSync(process.execPath, [BIN, 'serve', '--log-level', 'silent', ...(args as string[])], { encoding: 'utf8', timeout: 20_000 });
  expect(r.status).toBe(1);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(message as RegExp);
});
