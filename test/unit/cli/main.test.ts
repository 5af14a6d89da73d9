/**
 * The command line as a user runs it (the compiled bin, as `npm start` does): help, usage errors with
 * exit code 2 and one line (serve's are start-up failures, exit 1: test/unit/cli/serve-startup.test.ts),
 * seeding, serving.
 */
import { spawnSync } from 'node:child_process';
import { startServeProcess } from '../../helpers/serve-process.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const bin = path.join(root, 'dist', 'src', 'cli', 'main.js');

beforeAll(() => {
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: run 'npm run build' (npm test does it first).`);
});

const run = (...args: string[]): ReturnType<typeof spawnSync> => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: os.tmpdir() });

test.each([['serve'], ['seed']])('%s --help prints usage and exits 0', (cmd) => {
  const r = run(cmd, '--help');
  expect(r.status).toBe(0);
  expect(r.stdout).toContain(`Usage: ecn-odata ${cmd}`);
});

test.each([
  [['seed', '--dataset', 'x'], /--dataset takes 'demo'/],
  [['frobnicate'], /unknown command 'frobnicate'/],
])('%j is a one-line usage error with exit code 2', (args, message) => {
  const r = run(...(args as string[]));
  expect(r.status).toBe(2);
  expect(String(r.stderr).trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(message as RegExp);
});

test('a broken model stops start-up with the file, pointer and fix, no stack trace', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-cli-'));
  fs.cpSync(path.join(root, 'test', 'fixtures', 'metadata'), path.join(dir, 'metadata'), { recursive: true });
  const file = path.join(dir, 'metadata', 'entities', 'contact.json');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"Edm.String"', '"Edm.Strin"'));
  const r = run('seed', '--db', path.join(dir, 'x.sqlite'), '--metadata', path.join(dir, 'metadata'));
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('contact.json');
  expect(r.stderr).toMatch(/\/properties\/\d+\/type/);
  expect(r.stderr).toContain('Fix:');
  expect(r.stderr).not.toMatch(/\n\s+at /);
});

test('seed writes the demo data once', () => {
  const db = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-seed-')), 'demo.sqlite');
  const first = run('seed', '--db', db);
  expect(first.status).toBe(0);
  expect(first.stdout).toMatch(/Seeded .*engChangeNotices/);
  const second = run('seed', '--db', db);
  expect(second.status).toBe(0);
  expect(second.stdout).toContain('nothing seeded');
});

test('serve --seed demo prints the service root, the index page, the API docs and an ADMIN token, and answers on each', async () => {
  const server = await startServeProcess();
  try {
    const origin = new URL(server.url).origin;
    expect(server.banner).toContain(`index page:       ${origin}/\n`);
    expect(server.banner).toContain(`API docs:         ${origin}/docs\n`);
    for (const page of ['/', '/docs']) expect((await fetch(`${origin}${page}`)).status).toBe(200);
    expect((await fetch(`${server.url}/engChangeNotices?$top=2`)).status).toBe(401);
    const r = await fetch(`${server.url}/engChangeNotices?$top=2`, { headers: { Authorization: `Bearer ${server.token}` } });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { value: unknown[] };
    expect(body.value).toHaveLength(2);
  } finally {
    server.stop();
  }
});

test('serve --seed demo prints the same ADMIN token at every start until it is revoked (issue 13, defect 10)', async () => {
  const db = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-demo-token-')), 'demo.sqlite');
  const tokens: string[] = [];
  for (let i = 0; i < 2; i++) {
    const s = await startServeProcess([], db);
    tokens.push(s.token);
    const r = await fetch(`${s.url}/companies`, { headers: { Authorization: `Bearer ${s.token}` } });
    expect(r.status).toBe(200);
    s.stop();
    await new Promise((resolve) => s.child.once('exit', resolve));
  }
  expect(tokens[1]).toBe(tokens[0]);
  expect((fs.statSync(`${db}.demo-token`).mode & 0o777).toString(8)).toBe('600');
  // The README's way to end it: revoke, and the next start issues a new one.
  expect(run('token', 'revoke', '--user', 'ADMIN', '--db', db).status).toBe(0);
  const s = await startServeProcess([], db);
  try {
    expect(s.token).not.toBe(tokens[0]);
    expect((await fetch(`${s.url}/companies`, { headers: { Authorization: `Bearer ${tokens[0]}` } })).status).toBe(401);
    expect((await fetch(`${s.url}/companies`, { headers: { Authorization: `Bearer ${s.token}` } })).status).toBe(200);
  } finally {
    s.stop();
  }
});

test('the build leaves the ecn-odata command executable (npx runs the file through its #! line)', () => {
  // tsc writes new files without the execute bit; scripts/bin-executable.mjs, run by every build, adds it.
  expect(fs.statSync(bin).mode & 0o111).toBe(0o111);
  expect(fs.readFileSync(bin, 'utf8').startsWith('#!')).toBe(true);
});
