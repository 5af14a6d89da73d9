// The cost of an entity-change subscription on writes: the PATCH and comment-POST scenarios on ours,
// run without a subscription and then with one on engChangeNotices (a local receiver answers the
// handshake and the notifications), one after the other so that both runs see the same machine.
// Target: each scenario keeps at least 85% of its req/s.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

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
 * Runs WRITE_SCENARIOS on ours without and with one subscription. `harness(argv, outFile)` runs the
 * harness with the given extra arguments and resolves with its exit code.
 */
export async function subscriptionCost({ harness, root, companyId, token, results, stamp, log }) {
  const receiver = await startReceiver();
  const only = ['--only', `^(${WRITE_SCENARIOS.join('|')})$`];
  const rps = (file) => Object.fromEntries(JSON.parse(fs.readFileSync(file, 'utf8')).scenarios.map((s) => [s.name, s.targets.ours?.status === 'ok' ? s.targets.ours.rps : NaN]));
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  try {
    const without = path.join(results, `bench-${stamp}-without-subscription.json`);
    log('subscription cost: the write scenarios without a subscription ...');
    if ((await harness([...only, '--out', without])) !== 0) throw new Error('the harness failed (without a subscription)');
    const created = await fetch(`${root}/subscriptions`, { method: 'POST', headers, body: JSON.stringify({ notificationUrl: receiver.url, resource: `companies(${companyId})/engChangeNotices` }) });
    if (created.status !== 201) throw new Error(`POST subscriptions answered ${created.status}: ${await created.text()}`);
    const { subscriptionId } = await created.json();
    const withOne = path.join(results, `bench-${stamp}-with-subscription.json`);
    log('subscription cost: the write scenarios with one subscription on engChangeNotices ...');
    try {
      if ((await harness([...only, '--out', withOne])) !== 0) throw new Error('the harness failed (with a subscription)');
    } finally {
      await fetch(`${root}/subscriptions('${subscriptionId}')`, { method: 'DELETE', headers: { ...headers, 'If-Match': '*' } });
    }
    const a = rps(without);
    const b = rps(withOne);
    const rows = WRITE_SCENARIOS.map((name) => ({ name, without: a[name], with: b[name], loss: 1 - b[name] / a[name] }));
    return { rows, met: rows.every((r) => r.loss <= MAX_LOSS), notifications: receiver.count() };
  } finally {
    await receiver.close();
  }
}

/** The report lines. */
export function formatSubscriptionCost({ rows, met, notifications }) {
  const lines = rows.map((r) => `  ${r.name}: ${r.without.toFixed(0)} req/s without, ${r.with.toFixed(0)} with (${(r.loss * 100).toFixed(1)}% lost)`);
  return [`one entity-change subscription on engChangeNotices (target: at most ${MAX_LOSS * 100}% fewer req/s): ${met ? 'met' : 'NOT met'}; ${notifications} notification POSTs received`, ...lines].join('\n');
}
