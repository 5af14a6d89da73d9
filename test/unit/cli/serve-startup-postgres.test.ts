/**
 * src/cli/serve.ts, src/cli/startup-error.ts on a PostgreSQL server that answers but refuses what `serve`
 * asks (the run's server, test/postgres/global-setup.mjs): a wrong password and a database that does
 * not exist are one clear line on stderr, with the password hidden, no URL and no token, and exit 1.
 * The failures that need no server (nothing listening, a server that never answers, a URL that cannot
 * be read) are in serve-startup.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { postgresUrl } from '../../helpers/postgres.js';
import { expectOneLineFailure, serveIn } from '../../helpers/serve-failure.js';

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-startup-pg-'));
afterAll(() => fs.rmSync(workDir, { recursive: true, force: true }));

test('a PostgreSQL URL with a wrong password: one line with the URL (password hidden) and what to check, exit 1', async () => {
  const url = new URL(postgresUrl('postgres'));
  url.password = 'wrong-password';
  const r = await serveIn(workDir, '--db', url.toString());
  expectOneLineFailure(r, /cannot use the database postgres:\/\/[^:]+:\*\*\*@.*password authentication failed.*user name or password is wrong/);
  expect(r.stderr).not.toContain('wrong-password');
});

test('a PostgreSQL URL of a database that does not exist: one line saying to create it first, exit 1', async () => {
  expectOneLineFailure(await serveIn(workDir, '--db', postgresUrl('no_such_database_here')), /database "no_such_database_here" does not exist \(create the database first/);
});
