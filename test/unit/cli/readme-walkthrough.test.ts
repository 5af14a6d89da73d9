/**
 * The README's curl walk-through and its `$batch` examples, run as written (bash + curl) against
 * `ecn-odata serve --seed demo`, with only the port changed. Guards the newcomer's first experience.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT as root, startServeProcess } from '../../helpers/serve-process.js';

test('the README curl walk-through works as written', async () => {
  if (spawnSync('curl', ['--version']).status !== 0) throw new Error('curl is needed for this test (Debian package curl)');
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const block = /## A walk through the interface with curl[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block).toBeDefined();
  const server = await startServeProcess();
  try {
    const [base, token] = [server.url, server.token];
    const script = String(block).replace('ROOT=http://127.0.0.1:8080/api/v2.0', `ROOT=${base}`).replace('TOKEN=paste-the-token-npm-start-printed', `TOKEN=${token}`);
    const r = spawnSync('bash', ['-e', '-c', script], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toContain('created ECN000013');
    expect(r.stdout).toContain('"code":"BadRequest_InvalidToken"');
    expect(lines).toContain('Approved');
    expect(lines).toContain('10000');
    expect(lines).toContain('BadRequest_MethodNotAllowed');
    expect(lines).toContain('assembly@cronus.example');
    expect(lines).toContain('Increase bore to 14 mm.');
    expect(r.stdout).toContain('"code":"BadRequest_InvalidRequestUrl"');
    expect(r.stdout).toContain('"code":"Authentication_InvalidCredentials"');
    expect(lines).toContainEqual(expect.stringMatching(/#engChangeNotices\(number\)".*"number":"ECN\d{6}"\}\]\}$/)); // Basic
    expect(r.stdout).not.toContain('undefined');
  } finally {
    server.stop();
  }
}, 60_000);

test('the README $batch examples work as written (multipart and JSON, a change set with $1, all or nothing)', async () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const block = /## Batches, PUT and deep insert[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block).toBeDefined();
  const server = await startServeProcess();
  try {
    const script = String(block).replace('ROOT=http://127.0.0.1:8080/api/v2.0', `ROOT=${server.url}`).replace('TOKEN=paste-the-token-npm-start-printed', `TOKEN=${server.token}`);
    const r = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], { encoding: 'utf8', timeout: 30_000 });
    expect([r.status, r.stderr]).toEqual([0, '']);
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 201 Created', 'HTTP/1.1 201 Created']);
    expect(lines).toContain('Created with its ECN.');
    expect(lines).toContain('424 400');
  } finally {
    server.stop();
  }
}, 60_000);
