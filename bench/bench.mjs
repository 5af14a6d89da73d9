// `npm run bench`: ours against the SAP CAP peer and the raw node:http + better-sqlite3 anchor, on the
// same data (the CAP seed's), with the shared harness (run.mjs, scenarios.json).
//
//   npm run bench                                  # 5 s x 2 rounds + 2 s warm-up, 16 connections
//   DURATION=10 ROUNDS=3 npm run bench             # longer
//   npm run bench -- --only '^ecn-'                # a subset (regex on scenario names)
//   BENCH_CPU_PROF=1 npm run bench                 # also writes a CPU profile of our server
//   npm run bench -- --engine postgres             # ours on PostgreSQL (1 instance and --workers 2) vs CAP on
//                                                  # @cap-js/postgres, one embedded PostgreSQL server (bench/lib/bench-postgres.mjs)
//   npm run bench -- --engine postgres --replicas 1  # the read scenarios with Data-Access-Intent: ReadOnly, ours
//                                                  # with one hot standby beside ours without (bench/lib/bench-replicas.mjs)
//
// Scenarios: the harness's scenarios.json plus the project's own bench/scenarios.json (merged into
// bench/.work/scenarios.json, passed with --scenarios).
//
// Steps: copy + install the harness and the CAP peer into bench/.work/ (once), seed CAP (its
// seed.js) and ours (bench/lib/bench-data.mjs: the same rows), start the three servers on
// loopback, verify every scenario on ours (exit 1 if one fails), run the harness with targets
// ours, cap, raw (--pid for each: CPU per request and peak RSS), stop what it started, and write the
// table and the harness's JSON under bench/results/, with the targets of issue 7 checked; then the
// noisy-neighbour scenario (bench/lib/noisy-neighbour.mjs) and the cost of one entity-change
// subscription on the write scenarios (bench/lib/subscription-cost.mjs) on ours.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { prepareWorkFolder, RESULTS, WORK } from './lib/work-folder.mjs';
import { seedBenchDatabase, BENCH_COMPANY } from './lib/bench-data.mjs';
import { freePort, killAllNow, memoryMiB, oursNodeFlags, oursToken, startNode, startOurs, stop, stopAll, waitHttp } from './lib/servers.mjs';
import { checkTargets, formatChecks } from './lib/targets.mjs';
import { appendHistory, HISTORY } from './lib/history.mjs';
import { formatNoisyNeighbour, noisyNeighbour } from './lib/noisy-neighbour.mjs';
import { formatSubscriptionCost, subscriptionCost, WRITE_SCENARIOS } from './lib/subscription-cost.mjs';

const { values: args } = parseArgs({ options: { only: { type: 'string' }, engine: { type: 'string', default: 'sqlite' }, replicas: { type: 'string' } } });
if (args.engine !== 'sqlite' && args.engine !== 'postgres') {
  console.error(`[bench] --engine ${args.engine}: use sqlite (the default) or postgres`);
  process.exit(2);
}
if (args.replicas !== undefined && (args.engine !== 'postgres' || args.replicas !== '1')) {
  console.error(`[bench] --replicas ${args.replicas}: only --replicas 1, with --engine postgres`);
  process.exit(2);
}
const env = (k, d) => process.env[k] ?? String(d);
const DURATION = env('DURATION', 5);
const ROUNDS = env('ROUNDS', 2);
const WARMUP = env('WARMUP', 2);
const CONNECTIONS = env('CONNECTIONS', 16);
const STAMP = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
const log = (m) => console.error(`[bench] ${m}`);

/** Runs a node script, echoing its stdout to ours and to `teeFile`; resolves with its exit code. */
function runNode(script, argv, { cwd, teeFile }) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...argv], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
    const tee = teeFile === undefined ? undefined : fs.createWriteStream(teeFile);
    child.stdout.on('data', (d) => {
      process.stdout.write(d);
      tee?.write(d);
    });
    child.on('exit', (code) => {
      tee?.end();
      resolve(code ?? 1);
    });
  });
}

async function main() {
  const t0 = Date.now();
  fs.mkdirSync(RESULTS, { recursive: true });
  const work = prepareWorkFolder((m) => log(m));
  if (args.engine === 'postgres' && args.replicas !== undefined) {
    const { benchReplicas } = await import('./lib/bench-replicas.mjs');
    return benchReplicas({ work, settings: { duration: DURATION, rounds: ROUNDS, warmup: WARMUP, connections: CONNECTIONS }, only: args.only, stamp: STAMP, log });
  }
  if (args.engine === 'postgres') {
    const { benchPostgres } = await import('./lib/bench-postgres.mjs');
    const settings = { duration: DURATION, rounds: ROUNDS, warmup: WARMUP, connections: CONNECTIONS };
    return benchPostgres({ work, settings, onlyArgs: args.only === undefined ? [] : ['--only', args.only], stamp: STAMP, log });
  }

  log('seeding CAP (its seed.js) and ours (the same rows) ...');
  const capSeed = startNode('cap-seed', ['seed.js'], { cwd: work.cap, logFile: path.join(WORK, 'cap-seed.log') });
  const oursDb = path.join(WORK, 'ours-bench.sqlite');
  const seeded = await seedBenchDatabase(oursDb);
  log(`  ours: ${Object.entries(seeded.counts).map(([k, v]) => `${v} ${k}`).join(', ')} in ${seeded.seconds.toFixed(1)} s${seeded.addedIndexes.length ? `; added indexes ${seeded.addedIndexes.join(', ')}` : ''}`);
  const capCode = await new Promise((r) => (capSeed.exited ? r(capSeed.code) : capSeed.child.once('exit', (c) => r(c))));
  if (capCode !== 0) throw new Error(`the CAP seed failed (exit ${capCode}); see ${capSeed.logFile}`);
  const capDb = path.join(work.cap, 'data', 'bench.sqlite');

  const token = oursToken(oursDb, BENCH_COMPANY.name);
  log(token === undefined ? 'our CLI has no token command: no Authorization header for ours' : 'bearer token for user BENCH obtained from our CLI');

  const profDir = path.join(WORK, 'profiles');
  const profiling = process.env.BENCH_CPU_PROF === '1';
  const ours = await startOurs(oursDb, path.join(WORK, `ours-server-${STAMP}.log`), { nodeFlags: profiling ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [] });
  const capPort = await freePort();
  const cap = startNode('cap', ['server-start.js', '--port', String(capPort)], { cwd: work.cap, logFile: path.join(WORK, `cap-server-${STAMP}.log`) });
  const rawPort = await freePort();
  const raw = startNode('raw', [work.raw, '--port', String(rawPort), '--db', capDb], { cwd: work.harness, logFile: path.join(WORK, `raw-server-${STAMP}.log`) });
  const capRoot = `http://127.0.0.1:${capPort}/api/v2.0`;
  const rawRoot = `http://127.0.0.1:${rawPort}/api/v2.0`;
  await waitHttp(cap, `${capRoot}/$metadata`);
  await waitHttp(raw, `${rawRoot}/engChangeNotices?$top=1`);
  // Company-scoped base URL: comment-post POSTs to engChangeNoticeComments, a company-scoped-only set.
  const oursBase = `${ours.root}/companies(${BENCH_COMPANY.id})`;
  log(`ours pid ${ours.pid} ${oursBase} (node ${oursNodeFlags(oursDb).join(' ') || 'without flags'}); cap pid ${cap.pid} ${capRoot}; raw pid ${raw.pid} ${rawRoot}`);

  const headerArgs = token === undefined ? [] : ['--header', `ours=Authorization: Bearer ${token}`];
  const onlyArgs = args.only === undefined ? [] : ['--only', args.only];
  const scenarioArgs = ['--scenarios', work.scenarios];
  const verifyCode = await runNode(work.runMjs, ['--target', `ours=${oursBase}`, ...headerArgs, ...onlyArgs, ...scenarioArgs, '--verify-only'], { cwd: work.harness });
  if (verifyCode !== 0) {
    log('verification failed on ours: not timing');
    return 1;
  }

  const jsonOut = path.join(RESULTS, `bench-${STAMP}.json`);
  const txtOut = path.join(RESULTS, `bench-${STAMP}.txt`);
  const runArgs = [
    '--target', `ours=${oursBase}`, '--target', `cap=${capRoot}`, '--target', `raw=${rawRoot}`,
    ...headerArgs, '--pid', `ours=${ours.pid}`, '--pid', `cap=${cap.pid}`, '--pid', `raw=${raw.pid}`,
    '--duration', DURATION, '--rounds', ROUNDS, '--warmup', WARMUP, '--connections', CONNECTIONS, ...onlyArgs, ...scenarioArgs, '--out', jsonOut,
  ];
  log(`running the harness: ${DURATION} s x ${ROUNDS} rounds, ${WARMUP} s warm-up, ${CONNECTIONS} connections`);
  const runCode = await runNode(work.runMjs, runArgs, { cwd: work.harness, teeFile: txtOut });
  if (runCode !== 0 || !fs.existsSync(jsonOut)) {
    log(`the harness failed (exit ${runCode})`);
    return 1;
  }
  // Peak RSS over the scenarios, before the noisy neighbour starts a read thread (reported beside it).
  const peak = { ours: memoryMiB(ours.pid), cap: memoryMiB(cap.pid), raw: memoryMiB(raw.pid) };
  let noisy;
  if (token !== undefined && (args.only === undefined || new RegExp(args.only).test('noisy-neighbour'))) {
    log('noisy neighbour: ecn-by-key alone, then beside another user\'s nested any() reads ...');
    noisy = await noisyNeighbour({ base: oursBase, token, noisyToken: oursToken(oursDb, BENCH_COMPANY.name, 'NOISY'), seconds: Number(DURATION) });
    noisy.peakMiB = memoryMiB(ours.pid)?.hwm;
  }
  let subscription;
  if (token !== undefined && (args.only === undefined || WRITE_SCENARIOS.some((n) => new RegExp(args.only).test(n)))) {
    const harness = (extra) => runNode(work.runMjs, ['--duration', DURATION, '--rounds', ROUNDS, '--warmup', WARMUP, '--connections', CONNECTIONS, ...scenarioArgs, ...extra], { cwd: work.harness });
    subscription = await subscriptionCost({
      harness, dbFile: oursDb, companyId: BENCH_COMPANY.id, token, results: RESULTS, stamp: STAMP, log,
      startServer: (db, name) => startOurs(db, path.join(WORK, `${name}-server-${STAMP}.log`), { name, args: ['--webhooks-allow-private'] }),
      stopServer: stop,
    });
  }
  const doc = JSON.parse(fs.readFileSync(jsonOut, 'utf8'));
  const checks = checkTargets(doc, peak);
  const report =
    formatChecks(checks, peak, { seconds: (Date.now() - t0) / 1000, duration: DURATION, rounds: ROUNDS, warmup: WARMUP, connections: CONNECTIONS, oursFlags: oursNodeFlags(oursDb).join(' ') }) +
    (noisy === undefined ? '' : `\n${formatNoisyNeighbour(noisy)}`) +
    (subscription === undefined ? '' : `\n${formatSubscriptionCost(subscription)}`);
  console.log(`\n${report}`);
  fs.appendFileSync(txtOut, `\n${report}\n`);
  fs.copyFileSync(txtOut, path.join(RESULTS, 'bench-latest.txt'));
  fs.copyFileSync(jsonOut, path.join(RESULTS, 'bench-latest.json'));
  log(`wrote ${path.relative(process.cwd(), txtOut)} and ${path.relative(process.cwd(), jsonOut)}`);
  appendHistory({
    engine: 'sqlite',
    ratios: checks.rows.map((r) => [r.name, r.rpsRatio]),
    raw: checks.rows.filter((r) => r.rawTarget !== undefined).map((r) => [r.name, r.rawRatio]),
    peakMiB: peak.ours?.hwm ?? null,
    only: args.only,
    noisy,
  });
  log(`added the run to ${path.relative(process.cwd(), HISTORY)}`);
  const oursFailed = doc.scenarios.filter((s) => s.targets.ours?.status !== 'ok').map((s) => s.name);
  if (oursFailed.length > 0) {
    log(`FAIL on ours: ${oursFailed.join(', ')}`);
    return 1;
  }
  if (noisy !== undefined && !noisy.met) log('the noisy-neighbour target is not met');
  if (subscription !== undefined && !subscription.met) log('the subscription-cost target is not met');
  if (profiling) log(`CPU profile of our server: ${profDir} (written when the server stops)`);
  return 0;
}

process.once('SIGINT', () => {
  killAllNow();
  process.exit(130);
});
let code = 1;
try {
  code = await main();
} catch (e) {
  console.error(`[bench] ${e instanceof Error ? e.message : String(e)}`);
  code = 1;
} finally {
  await stopAll();
}
process.exit(code);
