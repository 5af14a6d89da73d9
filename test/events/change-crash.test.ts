/**
 * Entity-change notifications survive a crash (conventions §12, issue #42): three `serve` processes on
 * one PostgreSQL database, one subscription on CRONUS's ECNs, 1,000 ECNs created through the three
 * instances in turn, and one instance SIGKILLed when about 400 are in. Every ECN whose create was
 * answered 201 reaches the receiver at least once (as a created entry, or inside a collection entry's
 * filter); none of 50 ECNs that existed before sees an entry, though each got a PATCH that its rule
 * refused (a rolled-back write).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createEmptyDatabase, type EmptyDatabase } from '../helpers/postgres.js';
import { metadataWithWebhooks } from '../helpers/metadata-copy.js';
import { serveApi, startServeProcess, type ServeProcess } from '../helpers/serve-process.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const CHANGES = 1000;
const KILL_AFTER = 400;
const BEFORE = 50;

let database: EmptyDatabase;
let receiver: Receiver;
let metadata: string;
const servers: ServeProcess[] = [];

beforeAll(async () => {
  database = await createEmptyDatabase('changecrash');
  receiver = await startReceiver();
  metadata = metadataWithWebhooks({ changeWindowMs: 500 });
}, 60_000);
afterAll(async () => {
  for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  await receiver.close();
  await database.drop();
  fs.rmSync(path.dirname(metadata), { recursive: true, force: true });
});

const api = serveApi;

test('1,000 ECN changes through 3 instances, one SIGKILLed mid-way: every committed change is notified at least once, no rolled-back one', async () => {
  const args = ['--metadata', metadata, '--webhooks-allow-private', '--webhooks-timeout', '2000', '--webhooks-backoff', '200,200,500'];
  for (let i = 0; i < 3; i++) servers.push(await startServeProcess(args, database.url));
  const [a, b] = servers as [ServeProcess, ServeProcess, ServeProcess];
  const cronus = (await api(a, 'GET', "/companies?$filter=name eq 'CRONUS'")).json.value[0].id as string;
  const prefix = `/companies(${cronus})`;
  const before: string[] = [];
  for (let i = 0; i < BEFORE; i++) before.push((await api(a, 'POST', `${prefix}/engChangeNotices`, { drawingNumber: `before-${i}` })).json.id as string);
  const sub = await api(b, 'POST', '/subscriptions', { notificationUrl: `${receiver.url}/crash`, resource: `companies(${cronus})/engChangeNotices` });
  expect(sub.status).toBe(201);

  const created = new Set<string>();
  const victim = servers[2] as ServeProcess;
  let sent = 0;
  const next = async (): Promise<void> => {
    while (sent < CHANGES) {
      const n = sent++;
      if (n === KILL_AFTER) victim.child.kill('SIGKILL');
      const server = servers[n % 3] as ServeProcess;
      if (server === victim && n >= KILL_AFTER) continue;
      try {
        const r = await api(server, 'POST', `${prefix}/engChangeNotices`, { drawingNumber: `crash-${n}` });
        if (r.status === 201) created.add(r.json.id as string);
      } catch {
        // The killed instance's requests in flight: committed or not, nobody was told.
      }
      // A rolled-back write, now and then: a source status on an ECN without a production order, which the ECN rule refuses in the transaction.
      if (n % 20 === 0) {
        const refused = await api(a, 'PATCH', `${prefix}/engChangeNotices(${before[(n / 20) % BEFORE] ?? ''})`, { sourceStatus: 'Released' });
        expect(refused.json?.error?.code).toBe('Application_DialogException');
      }
    }
  };
  await Promise.all(Array.from({ length: 12 }, next));
  expect(created.size).toBeGreaterThan(CHANGES * 0.6);

  const heard = new Set<string>();
  const collections = new Set<string>();
  const account = async (): Promise<boolean> => {
    for (const r of receiver.received.filter((x) => x.path === '/crash')) {
      for (const e of r.json.value as { resource: string; changeType: string }[]) {
        if (e.changeType === 'collection') {
          if (collections.has(e.resource)) continue;
          collections.add(e.resource);
          const filter = decodeURIComponent(e.resource.split('?')[1] ?? '');
          const read = await api(a, 'GET', `${prefix}/engChangeNotices?${filter}&$select=id&$top=100000`);
          for (const row of read.json.value as { id: string }[]) heard.add(row.id);
        } else {
          heard.add(/\(([^()]+)\)$/.exec(e.resource)?.[1] ?? '');
        }
      }
    }
    return [...created].every((id) => heard.has(id));
  };
  const end = Date.now() + 60_000;
  while (!(await account())) {
    if (Date.now() > end) throw new Error(`${[...created].filter((id) => !heard.has(id)).length} of ${created.size} created ECNs were never notified`);
    await new Promise((r) => setTimeout(r, 250));
  }
  // The refused PATCHes wrote nothing, so no entry names an ECN that existed before the subscription.
  expect(before.filter((id) => heard.has(id))).toEqual([]);
}, 180_000);
