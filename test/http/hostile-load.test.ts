/**
 * The worst requests the limits allow, fired without pause alongside another user's normal traffic
 * against the real service process: nested lambdas, huge pages, 100-part batches of reads, the largest
 * change set, and one user's sixteen large reads at once. The process stays up, its peak RSS stays under
 * 250 MiB, and the p99 latency of the normal traffic stays within 100 ms and under ten times what it was
 * without them (a ratio within one run, as the bench's); the numbers are printed for the record. On
 * SQLite in the project "load", on PostgreSQL in "load-postgres" (a database of the run's server).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { metadataWithLimits } from '../helpers/metadata-copy.js';
import { createEmptyDatabase, onPostgres, type EmptyDatabase } from '../helpers/postgres.js';
import { BIN, SERVICE_NODE_FLAGS, startServeProcess, type ServeProcess } from '../helpers/serve-process.js';

let s: ServeProcess;
let pg: EmptyDatabase | undefined;
let auth: Record<string, string>;
let normalAuth: Record<string, string>;
let readerAuth: Record<string, string>;
let ecnId: string;
let bigEcnId: string;
let company: string;

async function call(method: string, url: string, body?: string, headers: Record<string, string> = auth): Promise<{ status: number; bytes: number }> {
  const r = await fetch(`${s.url}${url}`, { method, body, headers: body === undefined ? headers : { ...headers, 'Content-Type': 'application/json' } });
  const buf = await r.arrayBuffer();
  return { status: r.status, bytes: buf.byteLength };
}

beforeAll(async () => {
  // One user sends all of it, thousands of requests a second on a quiet machine: its fair-use window is
  // raised, as the bench's user's is, so what is measured is the worst requests' effect, not the 429s.
  pg = onPostgres() ? await createEmptyDatabase('hostile') : undefined;
  const db = pg?.url ?? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-hostile-')), 'hostile.sqlite');
  s = await startServeProcess(['--metadata', metadataWithLimits({ userRequestsPer5Min: 1_000_000_000 })], db, SERVICE_NODE_FLAGS);
  auth = { Authorization: `Bearer ${s.token}` };
  // The normal traffic is another user's; KLEE (read-only) sends sixteen large reads at once.
  const token = (user: string): string => spawnSync(process.execPath, [BIN, 'token', '--user', user, '--db', db], { encoding: 'utf8' }).stdout.trim();
  normalAuth = { Authorization: `Bearer ${token('JSMITH')}` };
  readerAuth = { Authorization: `Bearer ${token('KLEE')}` };
  const companies = (await (await fetch(`${s.url}/companies`, { headers: auth })).json()) as { value: { id: string; name: string }[] };
  company = companies.value.find((c) => c.name === 'CRONUS')?.id as string;
  const post = async (url: string, body: unknown): Promise<{ id: string }> => {
    const r = await fetch(`${s.url}${url}`, { method: 'POST', body: JSON.stringify(body), headers: { ...auth, 'Content-Type': 'application/json' } });
    expect(r.status).toBe(201);
    return (await r.json()) as { id: string };
  };
  ecnId = (await post(`/companies(${company})/engChangeNotices`, {})).id;
  bigEcnId = (await post(`/companies(${company})/engChangeNotices`, {})).id;
  // 1,000 comments under one ECN (the per-collection cap), 2,000 more ECNs for large pages.
  for (let i = 0; i < 1000; i += 100) await Promise.all(Array.from({ length: 100 }, (_, k) => post(`/companies(${company})/engChangeNoticeComments`, { engChangeNoticeId: bigEcnId, comment: `comment ${i + k} ${'x'.repeat(60)}` })));
  for (let i = 0; i < 2000; i += 100) await Promise.all(Array.from({ length: 100 }, () => post(`/companies(${company})/engChangeNotices`, { drawingNumber: 'D'.repeat(20) })));
}, 120_000);
afterAll(async () => {
  if (s !== undefined && s.child.exitCode === null) {
    const exited = new Promise((resolve) => s.child.once('exit', resolve));
    s.stop();
    await exited;
  }
  await pg?.drop();
});

/** Runs `clients` loops of normal requests for `ms`; their latencies. */
async function normalTraffic(ms: number, clients: number): Promise<number[]> {
  const latencies: number[] = [];
  const end = performance.now() + ms;
  const urls = [`/companies(${company})/engChangeNotices(${ecnId})`, `/companies(${company})/engChangeNotices?$top=10&$select=number,status`, `/companies(${company})/engChangeOrderTasks?$top=5`];
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = c; performance.now() < end; i++) {
        const t0 = performance.now();
        const r = await call('GET', urls[i % urls.length] as string, undefined, normalAuth);
        latencies.push(performance.now() - t0);
        expect(r.status).toBe(200);
      }
    }),
  );
  return latencies;
}

const p99 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)] as number;

/** The worst requests the limits allow: each is refused, cut, or run in a read thread with a deadline. */
function worstRequests(): [string, string, string?][] {
  const c = `/companies(${company})`;
  return [
    ['GET', `${c}/engChangeNoticeComments?$filter=engChangeNotice/engChangeNoticeComments/any(a:a/engChangeNotice/engChangeNoticeComments/any(b:b/comment eq 'zz'))`],
    // No index serves contains(): a thousand cubed rows, cancelled at the deadline (503).
    ['GET', `${c}/engChangeNoticeComments?$filter=engChangeNotice/engChangeNoticeComments/any(a:a/engChangeNotice/engChangeNoticeComments/any(b:contains(b/comment,'zz')))`],
    ['GET', `${c}/engChangeNotices(${bigEcnId})?$expand=engChangeNoticeComments($expand=engChangeNotice($expand=engChangeNoticeComments($top=49)))`],
    ['GET', `${c}/engChangeNotices?$expand=engChangeNoticeComments,engChangeNoticeBOMLines`],
    ['GET', `${c}/engChangeNotices?$top=20000&$count=true&$filter=contains(drawingNumber,'D')`],
    ['GET', `${c}/engChangeNotices?$filter=${Array.from({ length: 999 }, () => 'true').join(' or ')}`],
    ['GET', `${c}/engChangeNoticeComments?$orderby=engChangeNotice/engChangeNoticeComments/$count desc&$top=5`],
    ['POST', `${c}/engChangeNotices`, `{"drawingNumber":${'['.repeat(5000)}${']'.repeat(5000)}}`],
    ['GET', `${c}/engChangeNotices?$top=1000000000`],
    // A hundred reads, each cheap alone, in one batch: together they go to a read thread.
    ['POST', '/$batch', JSON.stringify({ requests: Array.from({ length: 100 }, (_, i) => ({ id: `r${i}`, method: 'GET', url: `companies(${company})/engChangeNoticeComments?$filter=contains(comment,'zzz')&$count=true&$top=1` })) })],
    // A hundred lambdas over the comments in one batch: within limits.maxBatchWork, so it runs.
    ['POST', '/$batch', JSON.stringify({ requests: Array.from({ length: 100 }, (_, i) => ({ id: `r${i}`, method: 'GET', url: `companies(${company})/engChangeNotices?$filter=engChangeNoticeComments/any(c:contains(c/comment,'zzz'))&$top=1` })) })],
    // The largest change set the limits allow: 3 ECNs with 99 comments each, 300 entities.
    [
      'POST',
      '/$batch',
      JSON.stringify({ requests: [0, 1, 2].map((i) => ({ id: `e${i}`, atomicityGroup: 'g', method: 'POST', url: `companies(${company})/engChangeNotices`, body: { engChangeNoticeComments: Array.from({ length: 99 }, (_, k) => ({ comment: `cs ${k}` })) } })) }),
    ],
  ];
}

test('normal traffic keeps its p99 within 100 ms and 10x while the worst requests run; the process stays up under 250 MiB', async () => {
  await normalTraffic(1500, 4); // warm-up
  const unloaded = await normalTraffic(5000, 4);
  const worst = worstRequests();
  const statuses = new Map<number, number>();
  const batchStatuses = new Map<number, number>();
  let stop = false;
  const attackers = Array.from({ length: 4 }, async (_, a) => {
    for (let i = a; !stop; i++) {
      const [method, url, body] = worst[i % worst.length] as [string, string, string?];
      const r = await call(method, url, body);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (url === '/$batch') batchStatuses.set(r.status, (batchStatuses.get(r.status) ?? 0) + 1);
      if (i % 7 === 0) await call('GET', '/companies', undefined, { Authorization: `Bearer ecn_guess${i}` });
    }
  });
  // One read-only user sends sixteen large reads at once, again and again: its share of the read threads.
  const c = `/companies(${company})`;
  const readerLoops = Array.from({ length: 16 }, async () => {
    while (!stop) {
      const r = await call('GET', `${c}/engChangeNoticeComments?$filter=engChangeNotice/engChangeNoticeComments/any(a:a/engChangeNotice/engChangeNoticeComments/any(b:contains(b/comment,'zz')))&$top=1`, undefined, readerAuth);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      // Refused at once, it would loop in a microsecond; a client backs off (less than Retry-After says).
      if (r.status === 429) await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
  const loaded = await normalTraffic(10_000, 4);
  stop = true;
  await Promise.all([...attackers, ...readerLoops]);
  const status = fs.readFileSync(`/proc/${String(s.child.pid)}/status`, 'utf8');
  const hwmMiB = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
  console.log(
    `${onPostgres() ? 'PostgreSQL' : 'SQLite'}: normal traffic p99 unloaded ${p99(unloaded).toFixed(1)} ms (${unloaded.length} requests), with the worst requests ${p99(loaded).toFixed(1)} ms (${loaded.length}); ` +
      `worst requests by status ${JSON.stringify(Object.fromEntries(statuses))} (batches ${JSON.stringify(Object.fromEntries(batchStatuses))}); server peak RSS ${hwmMiB.toFixed(1)} MiB`,
  );
  expect(s.child.exitCode).toBeNull();
  expect((await call('GET', `/companies(${company})/engChangeNotices(${ecnId})`)).status).toBe(200);
  expect(statuses.get(500)).toBeUndefined();
  expect(batchStatuses.get(400)).toBeUndefined(); // each within maxBatchParts, maxChangeSetEntities and maxBatchWork
  // SQLite's read threads cancel the nested lambdas at the deadline; PostgreSQL answers them within it.
  if (!onPostgres()) expect(statuses.get(503)).toBeGreaterThan(0);
  expect(statuses.get(429)).toBeGreaterThan(0); // the reader's large reads past its share of the thread queue
  expect(hwmMiB).toBeGreaterThan(0);
  expect(hwmMiB).toBeLessThan(250);
  expect(p99(loaded)).toBeLessThan(10 * p99(unloaded));
  expect(p99(loaded)).toBeLessThan(100);
}, 120_000);
