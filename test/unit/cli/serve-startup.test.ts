/**
 * src/cli/serve.ts, src/cli/startup-error.ts: when `serve` cannot start (a busy port, a database it
 * cannot open or write, a bad option) it prints exactly one clear line on stderr, no URL and no token,
 * and exits 1.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BIN } from '../../helpers/serve-process.js';
import { expectOneLineFailure, serveIn } from '../../helpers/serve-failure.js';

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-startup-'));
afterAll(() => fs.rmSync(workDir, { recursive: true, force: true }));

/** Runs serve asynchronously (the test's own server must keep answering while it runs). */
const serve = (...args: string[]) => serveIn(workDir, ...args);

test('a busy port: one line naming the port, exit 1, no URL and no token', async () => {
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as net.AddressInfo).port;
  try {
    const r = await serve('--port', String(port), '--db', ':memory:', '--seed', 'demo');
    expectOneLineFailure(r, `cannot listen on 127.0.0.1:${port}: the port is in use`);
  } finally {
    await blocker.close();
  }
});

test('--workers on a busy port: one line from the primary (not one per worker), exit 1', async () => {
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as net.AddressInfo).port;
  try {
    const r = await serve('--port', String(port), '--db', path.join(workDir, 'workers.sqlite'), '--workers', '3');
    expectOneLineFailure(r, `cannot listen on 127.0.0.1:${port}: the port is in use`);
  } finally {
    await blocker.close();
  }
});

test('--workers on :memory: or with a bad count: one line saying why, exit 1', async () => {
  expectOneLineFailure(await serve('--port', '0', '--db', ':memory:', '--workers', '2'), "--workers needs a database the workers share (a file or a PostgreSQL URL); ':memory:' is private to each process.");
  expectOneLineFailure(await serve('--port', '0', '--db', path.join(workDir, 'w.sqlite'), '--workers', '0'), "--workers takes a whole number from 1 to 64, got '0'.");
});

test('a database path that is a folder: one line naming it, exit 1', async () => {
  const folder = path.join(workDir, 'a-folder');
  fs.mkdirSync(folder);
  expectOneLineFailure(await serve('--port', '0', '--db', folder), `cannot use the database ${folder}`);
});

test('a file that is not a SQLite database: one line naming it, exit 1', async () => {
  const file = path.join(workDir, 'notes.sqlite');
  fs.writeFileSync(file, 'these are my notes, not a database\n'.repeat(10));
  expectOneLineFailure(await serve('--port', '0', '--db', file), /cannot use the database .*notes\.sqlite: file is not a database/);
});

test('a database under a path whose folder is a file: one line, exit 1', async () => {
  const file = path.join(workDir, 'plain-file');
  fs.writeFileSync(file, 'x');
  expectOneLineFailure(await serve('--port', '0', '--db', path.join(file, 'db.sqlite')), /cannot use the database .*plain-file\/db\.sqlite/);
});

const unprivileged = typeof process.getuid === 'function' && process.getuid() !== 0;
(unprivileged ? test : test.skip)('a read-only database file: one line, exit 1 (skipped as root, who may write any file)', async () => {
  const file = path.join(workDir, 'readonly.sqlite');
  const seeded = spawnSync(process.execPath, [BIN, 'seed', '--db', file], { encoding: 'utf8' });
  expect(seeded.status).toBe(0);
  fs.chmodSync(file, 0o444);
  fs.chmodSync(path.dirname(file), 0o555);
  try {
    expectOneLineFailure(await serve('--port', '0', '--db', file), /cannot use the database .*readonly\.sqlite/);
  } finally {
    fs.chmodSync(path.dirname(file), 0o755);
  }
});

test.each([
  [['--prot', '80'], /Unknown option '--prot'/],
  [['--port', 'abc'], /--port must be a whole number/],
  [['--port', '70000'], /--port must be a whole number between 0 and 65535/],
  [['--seed', 'big'], /--seed takes 'demo'/],
  [['--log-level', 'loud'], /--log-level takes one of fatal, error, warn, info, debug, trace, silent, got 'loud'/],
  [['--jwt-issuer', 'https://id.example.com'], /JWT needs all of --jwt-issuer, --jwt-audience and --jwt-jwks-url/],
  [['--jwt-authorization-uri', 'https://login.example.com/authorize'], /--jwt-authorization-uri needs --jwt-issuer/],
  [['--cors-origin', 'https://app.example.com/'], /--cors-origin 'https:\/\/app.example.com\/' is not an origin/],
  [['--jwt-issuer', 'https://i', '--jwt-audience', 'a', '--jwt-jwks-url', 'https://i/keys', '--jwt-authorization-uri', 'login'], /--jwt-authorization-uri 'login' is not an http or https URL/],
])('a bad option %j: one line, exit 1', async (args, message) => {
  expectOneLineFailure(await serve('--db', ':memory:', ...(args as string[])), message as RegExp);
});

test('a PostgreSQL URL with no server behind it: one line with the URL (password hidden) and what to check, exit 1', async () => {
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const refused = await serve('--db', `postgres://u:secret@127.0.0.1:${port}/x`);
  expectOneLineFailure(refused, new RegExp(`cannot use the database postgres://u:\\*\\*\\*@127\\.0\\.0\\.1:${port}/x: .*ECONNREFUSED.*is the PostgreSQL server running`));
  expect(refused.stderr).not.toContain('secret');
  // A wrong password and a database that does not exist need the server: serve-startup-postgres.test.ts.
});

test('a PostgreSQL URL that cannot be read (a # in the password): one line saying how to write one, without the password, exit 1', async () => {
  const r = await serve('--db', 'postgres://ecn:pa#ss/word@db.example.com:5432/ecn');
  expectOneLineFailure(r, /ecn-odata serve: --db '.*' is not a PostgreSQL URL that can be read \(Invalid URL\): write it as postgres:\/\/user:password@host:5432\/database, with any special character .* # as %23\)/);
  expect(r.stderr).not.toContain('pa#ss');
  expect(r.stderr).not.toContain('ss/word');
});

test('a PostgreSQL URL with a % that starts no escape: refused as a URL that cannot be read, without the password', async () => {
  const r = await serve('--db', 'postgres://ecn:pa%ZZss@db.example.com:5432/ecn');
  expectOneLineFailure(r, /ecn-odata serve: --db '.*' is not a PostgreSQL URL that can be read \(a % that is not followed by two hexadecimal digits; write % itself as %25\)/);
  expect(r.stderr).not.toContain('pa%ZZss');
});

test('a PostgreSQL URL whose server accepts the connection and never answers: one line after the connect wait, exit 1', async () => {
  const silent = net.createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const port = (silent.address() as net.AddressInfo).port;
  try {
    expectOneLineFailure(await serve('--db', `postgres://u:p@127.0.0.1:${port}/x`), new RegExp(`cannot use the database postgres://u:\\*\\*\\*@127\\.0\\.0\\.1:${port}/x: Connection terminated due to connection timeout \\(the server does not answer`));
  } finally {
    silent.close();
  }
}, 20_000);
