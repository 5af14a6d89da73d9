/**
 * src/cli/subscriptions.ts as an operator runs it (the compiled bin): `subscriptions list` shows both
 * kinds of webhook subscriptions, all or one company's, as text or JSON; `subscriptions delete <id>`
 * removes one of either kind; help and usage errors as the other commands have them.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { BIN } from '../../helpers/serve-process.js';
import { REPO_METADATA, startTestService } from '../../helpers/test-service.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';

const APP_ID = '386390e8-f22c-4a6e-bad6-7699b9547004';
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-subscriptions-cli-'));
const db = path.join(workDir, 'subscriptions.sqlite');
let cronus = '';
let fabrikam = '';
let kleeChange = '';
let adminChange = '';
let jsmithEvent = '';

const run = (...args: string[]): SpawnSyncReturns<string> => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd: workDir, timeout: 30_000 });

function count(table: string): number {
  const conn = new BetterSqlite3(db, { readonly: true });
  try {
    return (conn.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n;
  } finally {
    conn.close();
  }
}

beforeAll(async () => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run 'npm run build' (npm test does it first).`);
  const receiver = await startReceiver();
  const t = await startTestService({ metadataDir: REPO_METADATA, dbFile: db, engine: 'sqlite', webhooks: { allowPrivate: true, handshakeTimeoutMs: 1000 } });
  try {
    [cronus, fabrikam] = t.companyIds as [string, string];
    const created = async (token: string | undefined, url: string, body: Record<string, unknown>): Promise<Record<string, string>> => {
      const r = await t.call('POST', url, { body, ...(token === undefined ? {} : { token }) });
      if (r.status !== 201) throw new Error(`${url}: ${r.status} ${r.text}`);
      return r.json;
    };
    kleeChange = (await created(await t.token('KLEE'), '/subscriptions', { notificationUrl: `${receiver.url}/k`, resource: `companies(${cronus})/engChangeNotices` })).subscriptionId ?? '';
    adminChange = (await created(undefined, '/subscriptions', { notificationUrl: `${receiver.url}/a`, resource: `/api/v2.0/companies(${fabrikam})/engChangeOrders` })).subscriptionId ?? '';
    jsmithEvent = (await created(await t.token('JSMITH'), '/externaleventsubscriptions', { companyId: cronus, appId: APP_ID, eventName: 'EngChangeOrderTaskActivated', eventVersion: '1.0', notificationUrl: `${receiver.url}/e` })).id ?? '';
  } finally {
    await t.close();
    await receiver.close();
  }
});
afterAll(() => fs.rmSync(workDir, { recursive: true, force: true }));

test('list: both kinds, one line each with id, kind, company, user, what and where', () => {
  const r = run('subscriptions', 'list', '--db', db);
  expect([r.status, r.stderr]).toEqual([0, '']);
  const lines = r.stdout.trim().split('\n');
  expect(lines).toHaveLength(3);
  const byId = new Map(lines.map((l) => [l.split('\t')[0], l.split('\t')]));
  expect(byId.get(kleeChange)?.slice(1, 6)).toEqual(['change', cronus, 'KLEE', `companies(${cronus})/engChangeNotices`, expect.stringMatching(/\/k$/)]);
  expect(byId.get(kleeChange)?.[6]).toMatch(/^expires \d{4}-\d\d-\d\dT/);
  expect(byId.get(jsmithEvent)?.slice(1, 5)).toEqual(['event', cronus, 'JSMITH', 'EngChangeOrderTaskActivated 1.0']);
  expect(byId.get(adminChange)?.slice(1, 4)).toEqual(['change', fabrikam, 'ADMIN']);
});

test('list --company (name or id) shows that company only; --json gives the same as objects', () => {
  for (const company of ['FABRIKAM', fabrikam]) {
    const r = run('subscriptions', 'list', '--company', company, '--db', db);
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n').map((l) => l.split('\t')[0])).toEqual([adminChange]);
  }
  const json = run('subscriptions', 'list', '--company', 'CRONUS', '--json', '--db', db);
  expect(json.status).toBe(0);
  const entries = JSON.parse(json.stdout) as { id: string; kind: string; companyId: string; userId: string }[];
  expect(entries.map((e) => [e.kind, e.userId, e.companyId]).sort()).toEqual([['change', 'KLEE', cronus], ['event', 'JSMITH', cronus]]);
  const unknown = run('subscriptions', 'list', '--company', 'NOPE', '--db', db);
  expect(unknown.status).toBe(2);
  expect(unknown.stderr).toContain("There is no company 'NOPE'");
});

test('delete <id> removes an entity-change subscription, and a business-event one; an unknown id exits 1', () => {
  const before = count('subscriptions');
  const change = run('subscriptions', 'delete', kleeChange, '--db', db);
  expect([change.status, change.stderr]).toEqual([0, '']);
  expect(change.stdout).toContain(`Deleted the entity-change subscription ${kleeChange} of KLEE`);
  expect(count('subscriptions')).toBe(before - 1);
  const event = run('subscriptions', 'delete', jsmithEvent.toUpperCase(), '--db', db);
  expect(event.status).toBe(0);
  expect(event.stdout).toContain(`Deleted the business-event subscription ${jsmithEvent} of JSMITH`);
  expect(count('externaleventsubscriptions')).toBe(0);
  const again = run('subscriptions', 'delete', kleeChange, '--db', db);
  expect(again.status).toBe(1);
  expect(again.stderr).toContain(`There is no subscription '${kleeChange}'`);
  expect(run('subscriptions', 'list', '--db', db).stdout.trim().split('\n').map((l) => l.split('\t')[0])).toEqual([adminChange]);
});

test('help, and usage errors on one line with exit code 2', () => {
  for (const args of [['subscriptions', '--help'], ['subscriptions', 'list', '--help']]) {
    const r = run(...args);
    expect([r.status, r.stdout]).toEqual([0, expect.stringContaining('Usage: ecn-odata subscriptions list')]);
  }
  expect(run('--help').stdout).toContain('subscriptions  list or delete webhook subscriptions');
  for (const [args, message] of [
    [['subscriptions'], null],
    [['subscriptions', 'frobnicate'], /unknown subcommand 'frobnicate'/],
    [['subscriptions', 'delete', '--db', db], /name the subscription's id/],
    [['subscriptions', 'list', '--bogus'], /Unknown option '--bogus'/],
  ] as const) {
    const r = run(...args);
    expect(r.status).toBe(2);
    if (message !== null) {
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
  }
});
