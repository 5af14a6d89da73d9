// `npm run bench:import`: `ecn-odata import` of 100,000 ECNs from a CSV file into a database seeded
// with the demo (for the company and the change reasons the rows refer to), as an operator runs it:
// the compiled CLI with the flags of npm start, through the body validator, the ECN rules, the number
// series and the reference checks. Reports rows/s (wall time of the whole command, start-up included)
// and the peak RSS of the process. Targets: >= 20,000 rows/s, <= 200 MiB. Then the same import into a
// copy of the seeded database with one entity-change subscription on the company's ECNs (its change
// capture writes a row per ECN imported): at most 15% slower.
//
//   npm run bench:import                 # 100,000 rows
//   IMPORT_N=20000 npm run bench:import  # fewer
//   IMPORT_NODE_FLAGS='--max-semi-space-size=16 --max-old-space-size=256' npm run bench:import   # a larger young generation
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO, RESULTS, WORK } from './lib/work-folder.mjs';
import { startOurs, stopAll } from './lib/servers.mjs';
import { subscribeOnce } from './lib/subscription-cost.mjs';

const N = Number(process.env.IMPORT_N ?? 100_000);
const BIN = path.join(REPO, 'dist', 'src', 'cli', 'main.js');
const PEAK = path.join(REPO, 'bench', 'lib', 'peak-rss.cjs');
// The flags of the ecn-odata command's #! line (tuned for the server's RSS); IMPORT_NODE_FLAGS overrides them.
const FLAGS = (process.env.IMPORT_NODE_FLAGS ?? '--max-semi-space-size=8 --max-old-space-size=256').split(' ').filter(Boolean);
const log = (m) => console.error(`[import] ${m}`);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-bench-import-'));
const db = path.join(dir, 'bench.sqlite');
const subscribed = path.join(dir, 'subscribed.sqlite');
const csv = path.join(dir, 'ecns.csv');

function run(args) {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [...FLAGS, '-r', PEAK, BIN, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const peak = /peak-rss-kib (\d+)/.exec(r.stderr);
  if (r.status !== 0) throw new Error(`ecn-odata ${args[0]} exited ${r.status}:\n${r.stdout}\n${r.stderr.slice(0, 4000)}`);
  return { seconds, peakMiB: peak ? Number(peak[1]) / 1024 : NaN, stdout: r.stdout.trim() };
}

try {
  log(`seeding the demo into ${db}`);
  run(['seed', '--db', db]);
  log(`writing ${N.toLocaleString('en')} ECNs to ${csv}`);
  const reasons = ['SAFETY', 'COST', 'DESIGN', 'QUALITY', 'SUPPLIER'];
  const sources = ['Item', 'Prod. Order', 'Sales Quote', 'Sales Order', ' '];
  const lines = ['status,changeReasonCode,drawingNumber,drawingTypeCode,sourceType,sourceNumber,sourceSequence'];
  for (let i = 0; i < N; i++) {
    lines.push(`New,${reasons[i % reasons.length]},DWG-${String(i).padStart(6, '0')},ASM,${sources[i % sources.length]},SRC-${i},${i % 100}`);
  }
  fs.writeFileSync(csv, `${lines.join('\n')}\n`);
  fs.copyFileSync(db, subscribed);
  log('subscribing to the changes of CRONUS\'s ECNs in a copy of the database');
  const server = await startOurs(subscribed, path.join(WORK, 'import-subscribe.log'), { args: ['--webhooks-allow-private'] });
  const admin = spawnSync(process.execPath, [BIN, 'token', '--user', 'ADMIN', '--db', subscribed], { encoding: 'utf8' }).stdout.trim().split('\n').pop();
  const companies = await (await fetch(`${server.root}/companies?$filter=name eq 'CRONUS'`, { headers: { Authorization: `Bearer ${admin}` } })).json();
  const receiver = await subscribeOnce({ root: server.root, companyId: companies.value[0].id, token: admin, set: 'engChangeNotices' });
  await stopAll();
  log('importing');
  const r = run(['import', '--set', 'engChangeNotices', '--company', 'CRONUS', '--file', csv, '--db', db]);
  log('importing with one subscription');
  const s = run(['import', '--set', 'engChangeNotices', '--company', 'CRONUS', '--file', csv, '--db', subscribed]);
  await receiver.close();
  const rate = N / r.seconds;
  const slower = s.seconds / r.seconds - 1;
  const result = {
    when: new Date().toISOString(), rows: N, seconds: Number(r.seconds.toFixed(2)), rowsPerSecond: Math.round(rate), peakRssMiB: Number(r.peakMiB.toFixed(1)),
    withSubscription: { seconds: Number(s.seconds.toFixed(2)), rowsPerSecond: Math.round(N / s.seconds), peakRssMiB: Number(s.peakMiB.toFixed(1)), slower: Number(slower.toFixed(3)) },
    output: r.stdout, machine: `${os.cpus().length} cores, ${os.cpus()[0]?.model ?? ''}`, nodeFlags: FLAGS.join(' '),
  };
  console.log(`import of ${N.toLocaleString('en')} ECNs (node ${FLAGS.join(' ')}): ${r.seconds.toFixed(2)} s, ${Math.round(rate).toLocaleString('en')} rows/s (target >= 20,000), peak RSS ${r.peakMiB.toFixed(1)} MiB (target <= 200)`);
  console.log(`with one subscription on the ECNs: ${s.seconds.toFixed(2)} s, ${Math.round(N / s.seconds).toLocaleString('en')} rows/s, ${(slower * 100).toFixed(1)}% slower (target <= 15%), peak RSS ${s.peakMiB.toFixed(1)} MiB`);
  console.log(r.stdout);
  fs.mkdirSync(RESULTS, { recursive: true });
  fs.writeFileSync(path.join(RESULTS, `import-${result.when.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}.json`), `${JSON.stringify(result, null, 2)}\n`);
  if (rate < 20_000 || r.peakMiB > 200 || slower > 0.15) process.exitCode = 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
