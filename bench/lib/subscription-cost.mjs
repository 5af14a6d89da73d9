// The cost of an entity-change subscription on writes: the PATCH and comment-POST scenarios against
// two servers of ours on two copies of the bench database, one of them with a subscription on the
// company's engChangeNotices (a local receiver answers the handshake and the notifications). The
// harness interleaves its rounds between the two, so both see the same machine. Target: each scenario
// keeps at least 85% of its req/s.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';

const Database = createRequire(import.meta.url)('better-sqlite3');

export const WRITE_SCENARIOS = ['ecn-patch-if-match-star', 'comment-post'];
const MAX_LOSS = 0.15;

/** A receiver on loopback: echoes validationToken, answers 200 to notifications and counts them. */
async function startReceiver() {
  let notifications = 0;
  const server = http.createServer((req, res) => {
    const token = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('validationToken');
    req.resume();
    req.on('end', () => {
      if (token !== null) return void res.writeHead(200, { 'content-type': 'text/plain' }).end(token);
      notifications++;
      res.writeHead(200).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/bench`, count: () => notifications, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Subscribes a new receiver to `set` of a company; resolves with the receiver (close it when done). */
export async function subscribeOnce({ root, companyId, token, set }) {
  const receiver = await startReceiver();
  const created = await fetch(`${root}/subscriptions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ notificationUrl: receiver.url, resource: `companies(${companyId})/${set}` }),
  });
  if (created.status !== 201) {
    await receiver.close();
    throw new Error(`POST subscriptions answered ${created.status}: ${await created.text()}`);
  }
  return receiver;
}

/**
 * Runs WRITE_SCENARIOS on two copies of `dbFile`, one server without and one with a subscription.
 * `harness(argv)` runs the harness with the given extra arguments and resolves with its exit code.
 */
export async function subscriptionCost({ harness, dbFile, companyId, token, results, stamp, log, startServer, stopServer }) {
  const copies = [];
  for (const name of ['plain', 'subscribed']) {
    const copy = path.join(path.dirname(dbFile), `ours-bench-${name}.sqlite`);
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${copy}${suffix}`, { force: true });
    const source = new Database(dbFile, { readonly: true });
    await source.backup(copy);
    source.close();
    copies.push(copy);
  }
  const plain = await startServer(copies[0], 'ours-plain');
  const subscribed = await startServer(copies[1], 'ours-subscribed');
  const scoped = (proc) => `${proc.root}/companies(${companyId})`;
  let receiver;
  try {
    receiver = await subscribeOnce({ root: subscribed.root, companyId, token, set: 'engChangeNotices' });
    const out = path.join(results, `bench-${stamp}-subscription.json`);
    log('subscription cost: the write scenarios on two copies of the database, one with a subscription on engChangeNotices ...');
    const code = await harness(['--target', `plain=${scoped(plain)}`, '--target', `subscribed=${scoped(subscribed)}`, '--header', `plain=Authorization: Bearer ${token}`, '--header', `subscribed=Authorization: Bearer ${token}`, '--only', `^(${WRITE_SCENARIOS.join('|')})$`, '--out', out]);
    if (code !== 0) throw new Error(`the harness failed (exit ${code})`);
    const doc = JSON.parse(fs.readFileSync(out, 'utf8'));
    const rps = (s, target) => (s.targets[target]?.status === 'ok' ? s.targets[target].rps : NaN);
    const rows = doc.scenarios.map((s) => ({ name: s.name, without: rps(s, 'plain'), with: rps(s, 'subscribed'), loss: 1 - rps(s, 'subscribed') / rps(s, 'plain') }));
    // The changes reach the receiver when the subscription's window closes (30 s after its first change).
    const until = Date.now() + 45_000;
    while (receiver.count() === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 500));
    return { rows, met: rows.every((r) => r.loss <= MAX_LOSS), notifications: receiver.count() };
  } finally {
    await receiver?.close();
    await stopServer(plain);
    await stopServer(subscribed);
  }
}

/** The report lines. */
export function formatSubscriptionCost({ rows, met, notifications }) {
  const lines = rows.map((r) => `  ${r.name}: ${r.without.toFixed(0)} req/s without, ${r.with.toFixed(0)} with (${(r.loss * 100).toFixed(1)}% lost)`);
  return [`one entity-change subscription on engChangeNotices (target: at most ${MAX_LOSS * 100}% fewer req/s): ${met ? 'met' : 'NOT met'}; ${notifications} notification POSTs received`, ...lines].join('\n');
}
