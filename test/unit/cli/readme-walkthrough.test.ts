/**
 * Every command block of the README that talks to a running demo service, run as written (bash, curl,
 * npx) against `ecn-odata serve --seed demo`, with only the addresses changed: the service's URL and
 * token, its database file, and the receiver's port. Guards the newcomer's first hour.
 * The PostgreSQL recipe is test/unit/cli/readme-postgres.test.ts (load tier: it starts a server).
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort } from '../../helpers/free-port.js';
import { readmeBlock } from '../../helpers/readme-example.js';
import { REPO_ROOT as root, startServeProcess, type ServeProcess } from '../../helpers/serve-process.js';

const WALK = readmeBlock('A walk through the interface with curl', 'sh', 'ROOT=');
/** The walk-through's first lines (ROOT, TOKEN, the api and json helpers): "in the walk-through's shell". */
const PREAMBLE = WALK.slice(0, WALK.indexOf('\n\n'));

/** The script with the README's address and token replaced by the server's. */
function forServer(script: string, server: ServeProcess, db?: string): string {
  let s = script.replace('ROOT=http://127.0.0.1:8080/api/v2.0', `ROOT=${server.url}`).replace('TOKEN=paste-the-token-npm-start-printed', `TOKEN=${server.token}`);
  s = s.replaceAll('http://127.0.0.1:8080/api/v2.0', server.url);
  if (db !== undefined) s = s.replaceAll('data/demo.sqlite', db);
  return s;
}

/**
 * bash -e on the script, in a folder inside the clone (npx finds the project's own `ecn-odata` from
 * there, as from the clone's root) that the test removes.
 */
function bash(script: string, cwd: string, pipefail = true): SpawnSyncReturns<string> {
  const args = pipefail ? ['-e', '-o', 'pipefail', '-c', script] : ['-e', '-c', script];
  return spawnSync('bash', args, { cwd, encoding: 'utf8', timeout: 60_000, env: { ...process.env, npm_config_update_notifier: 'false' } });
}

function workDir(): string {
  fs.mkdirSync(path.join(root, 'test-output'), { recursive: true });
  return fs.mkdtempSync(path.join(root, 'test-output', 'readme-'));
}

beforeAll(() => {
  if (spawnSync('curl', ['--version']).status !== 0) throw new Error('curl is needed for this test (Debian package curl)');
});

let server: ServeProcess;
let db: string;
let cwd: string;
beforeEach(async () => {
  cwd = workDir();
  db = path.join(cwd, 'demo.sqlite');
  server = await startServeProcess(['--webhooks-allow-private'], db);
});
afterEach(() => {
  server.stop();
  fs.rmSync(cwd, { recursive: true, force: true });
});

test('the README curl walk-through works as written', () => {
  const r = bash(forServer(WALK, server), cwd, false);
  expect([r.status, r.stderr]).toEqual([0, '']);
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
}, 60_000);

test('the README $batch examples work as written, in the walk-through shell (multipart and JSON, a change set with $1, all or nothing)', () => {
  const block = readmeBlock('Queries, `$apply` and batches', 'sh', '$batch');
  const r = bash(forServer(`${PREAMBLE}\n${block}`, server), cwd);
  expect([r.status, r.stderr]).toEqual([0, '']);
  const lines = r.stdout.split('\n');
  expect(lines.slice(0, 3)).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 201 Created', 'HTTP/1.1 201 Created']);
  expect(lines).toContain('Created with its ECN.');
  expect(lines).toContain('424 400');
}, 60_000);

test('the README $apply examples answer groups, in the walk-through shell', () => {
  const block = readmeBlock('Queries, `$apply` and batches', 'sh', 'groupby((status)');
  const r = bash(forServer(`${PREAMBLE}\n${block}`, server), cwd);
  expect([r.status, r.stderr]).toEqual([0, '']);
  const answers = r.stdout.trim().split('\n');
  expect(answers).toHaveLength(5);
  for (const a of answers.slice(0, 4)) expect(JSON.parse(a)).toHaveProperty('value');
  expect(JSON.parse(answers[0] as string).value).toContainEqual({ status: 'Approved', n: expect.any(Number) });
  expect(Number(answers[4])).toBeGreaterThan(1); // the number of status groups
}, 60_000);

test("the README's users, grants and tokens work as written with npx: 200 in the granted company, 403 in another, then revoked", () => {
  const r = bash(forServer(readmeBlock('Users, permissions and tokens', 'sh', 'users add --user READER'), server, db), cwd);
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/"number":"ECN\d{6}"/);
  expect(r.stdout).toContain('"code":"Authorization_CompanyAccessDenied"');
  const token = /ecn_\S+/.exec(r.stdout);
  expect(token).toBeNull(); // the token went into the variable, not to the screen
  const after = spawnSync('npx', ['ecn-odata', 'users', 'list', '--db', db], { cwd, encoding: 'utf8' });
  expect(after.stdout).toContain('READER');
}, 90_000);

test("the README's Excel set-up makes a user whose token reads the feed with Basic, as Power Query sends it", () => {
  const r = bash(forServer(readmeBlock('Excel and Power BI', 'sh', 'ANALYST'), server, db), cwd);
  expect(r.status).toBe(0);
  const token = /^(ecn_\S+)$/m.exec(r.stdout)?.[1];
  expect(token).toBeDefined();
  const read = spawnSync('curl', ['-s', '-u', `ANALYST:${String(token)}`, `${server.url}/engChangeNotices?$top=1&$select=number`], { encoding: 'utf8' });
  expect(read.stdout).toMatch(/"number":"ECN\d{6}"/);
}, 90_000);

test("the README's import and export lines run as written: the data file's reasons are imported, the ECNs exported as CSV", () => {
  fs.writeFileSync(path.join(cwd, 'reasons.csv'), readmeBlock('Adding an entity', 'csv', 'code,description'));
  const r = bash(readmeBlock('Adding an entity', 'sh', 'import --set changeReasons').replaceAll('data/demo.sqlite', db), cwd);
  expect([r.status, r.stderr]).toEqual([0, '']);
  const csv = fs.readFileSync(path.join(cwd, 'ecns.csv'), 'utf8').trim().split('\n');
  expect(csv[0]).toMatch(/^id,number,/);
  expect(csv.length).toBeGreaterThan(10);
  const reasons = spawnSync('curl', ['-s', '-H', `Authorization: Bearer ${server.token}`, `${server.url}/changeReasons?$filter=${encodeURIComponent("code in ('REG','CUST')")}&$select=description&$orderby=code`], { encoding: 'utf8' });
  expect((JSON.parse(reasons.stdout) as { value: { description: string }[] }).value.map((v) => v.description)).toEqual(['Customer request, urgent', 'Regulatory change']);
}, 90_000);

/** Starts the README's receiver on a free port in `cwd`; its printed output accumulates in `out.printed`. */
async function readmeReceiver(): Promise<{ port: number; readPort: (s: string) => string; receiver: ReturnType<typeof spawn>; out: { printed: string } }> {
  const port = await freePort();
  const readPort = (s: string): string => s.replaceAll('9000', String(port));
  fs.writeFileSync(path.join(cwd, 'verify-webhook.mjs'), readmeBlock('Webhooks', 'js', 'export function verifyWebhook'));
  fs.writeFileSync(path.join(cwd, 'receiver.mjs'), readPort(readmeBlock('Webhooks', 'js', '// receiver.mjs')));
  const receiver = spawn(process.execPath, ['receiver.mjs'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { printed: '' };
  receiver.stdout?.on('data', (d: Buffer) => (out.printed += d.toString()));
  receiver.stderr?.on('data', (d: Buffer) => (out.printed += d.toString()));
  await waitFor(() => new Promise((resolve) => net.connect(port, '127.0.0.1').on('connect', function (this: net.Socket) { this.end(); resolve(true); }).on('error', () => resolve(false))), 10_000);
  return { port, readPort, receiver, out };
}

test("the README's webhook receiver gets the task activation of the walk-through's ECO, signed, once", async () => {
  const { readPort, receiver, out } = await readmeReceiver();
  try {
    const script = forServer(`${WALK}\n${readPort(readmeBlock('Webhooks', 'sh', 'APP='))}\necho "task $TASK_ID"`, server);
    const r = bash(script, cwd, false);
    expect([r.status, r.stderr]).toEqual([0, '']);
    const lines = r.stdout.split('\n');
    expect(lines).toContain('Released');
    expect(lines).toContain('Active');
    const taskId = /^task (\S+)$/m.exec(r.stdout)?.[1];
    await waitFor(async () => out.printed.includes(String(taskId)), 15_000);
    const notifications = out.printed.trim().split('\n').map((l) => JSON.parse(l) as { eventName: string; clientState: string; payload: { engChangeOrderTaskId: string } });
    expect(notifications).toEqual([expect.objectContaining({ eventName: 'EngChangeOrderTaskActivated', clientState: 'my-state', payload: expect.objectContaining({ engChangeOrderTaskId: taskId }) })]);
  } finally {
    receiver.kill();
  }
}, 90_000);

test("the README's change subscription on the company's ECNs: the receiver prints the walk-through ECN's update after the window", async () => {
  const { readPort, receiver, out } = await readmeReceiver();
  try {
    const script = forServer(`${WALK}\n${readPort(readmeBlock('Webhooks', 'sh', 'CHG='))}\necho "ecn $ECN_ID"`, server);
    const r = bash(script, cwd, false);
    expect([r.status, r.stderr]).toEqual([0, '']);
    const lines = r.stdout.split('\n');
    expect(lines).toContain('D-2');
    expect(lines.some((l) => /^engChange\w+$/.test(l))).toBe(true);
    expect(lines.some((l) => /^\d{4}-\d\d-\d\dT/.test(l))).toBe(true);
    const ecnId = /^ecn (\S+)$/m.exec(r.stdout)?.[1];
    // The service's default window is 30 s from the first change.
    await waitFor(async () => out.printed.includes(String(ecnId)), 45_000);
    const [notification] = out.printed.trim().split('\n').map((l) => JSON.parse(l) as { value: { resource: string; changeType: string }[] });
    expect(notification?.value).toEqual([expect.objectContaining({ changeType: 'updated', resource: expect.stringContaining(`/engChangeNotices(${String(ecnId)})`) })]);
  } finally {
    receiver.kill();
  }
}, 90_000);

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
