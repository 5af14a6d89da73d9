// `npm run bench -- --engine postgres`: ours on PostgreSQL (one instance, and `--workers 2`) against the
// SAP CAP peer on @cap-js/postgres (../shared/bench/peers/cap-postgres), on one PostgreSQL server
// (bench/lib/postgres-server.mjs) and the same rows: CAP seeds its database with its seed.js, ours is
// seeded into SQLite as in the SQLite run and copied over (bench/lib/copy-to-postgres.mjs).
// CPU per request: our single instance and CAP through the harness's --pid; the two-worker instance and
// the PostgreSQL server (all its processes) through the peer's process-tree sampler, attributed to each
// timed run by the peer's pg-cpu-report.js. Target (issue 17): every scenario >= 5x CAP's req/s. Then
// the noisy-neighbour scenario (noisy-neighbour.mjs) on the single instance.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { RESULTS, WORK, installPeer } from './work-folder.mjs';
import { appendHistory, HISTORY } from './history.mjs';
import { seedBenchDatabase, BENCH_COMPANY } from './bench-data.mjs';
import { copyToPostgres } from './copy-to-postgres.mjs';
import { startBenchPostgres } from './postgres-server.mjs';
import { freePort, memoryMiB, oursToken, startNode, startOurs, waitHttp } from './servers.mjs';
import { formatNoisyNeighbour, noisyNeighbour } from './noisy-neighbour.mjs';

const RPS_VS_CAP = 5;
const f = (x, d = 0) => (x === undefined || x === null || Number.isNaN(x) ? '-' : x.toFixed(d));

/** Starts a sampler of a process tree's CPU (the peer's tool), writing to `file`. */
export function sampleTree(tools, pid, file, name) {
  return startNode(name, [path.join(tools, 'pg-cpu-sampler.js'), String(pid), file, '200'], { cwd: tools, logFile: `${file}.log` });
}

/** CPU µs per 2xx response of a process tree during `target`'s timed runs, per scenario (the peer's report, parsed). */
export function treeCpu(tools, samples, stderrTs, json, target) {
  const r = spawn(process.execPath, [path.join(tools, 'pg-cpu-report.js'), samples, stderrTs, json], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve) => {
    let out = '';
    r.stdout.on('data', (d) => (out += d));
    r.on('exit', () => {
      const byScenario = {};
      for (const line of out.split('\n').slice(1)) {
        const m = line.trim().split(/\s+/);
        if (m.length >= 3 && m[1] === target) byScenario[m[0]] = Number(m[2]);
      }
      resolve(byScenario);
    });
  });
}

/** Runs the harness, its stderr timestamped into `stderrFile` (for the CPU attribution) and echoed. */
export function runHarness(runMjs, argv, { cwd, teeFile, stderrFile }) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [runMjs, ...argv], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const tee = teeFile === undefined ? undefined : fs.createWriteStream(teeFile);
    const err = stderrFile === undefined ? undefined : fs.createWriteStream(stderrFile);
    child.stdout.on('data', (d) => {
      process.stdout.write(d);
      tee?.write(d);
    });
    let partial = '';
    child.stderr.on('data', (d) => {
      process.stderr.write(d);
      partial += d;
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) err?.write(`${Date.now()} ${l}\n`);
    });
    child.on('exit', (code) => {
      tee?.end();
      err?.end();
      resolve(code ?? 1);
    });
  });
}

/** The PostgreSQL run; `work` is prepareWorkFolder()'s result. Returns the exit code. */
export async function benchPostgres({ work, settings, onlyArgs, stamp, log }) {
  const capPg = path.join(work.harness, 'peers', 'cap-postgres');
  installPeer(capPg, log);
  const tools = path.join(capPg, 'tools');
  const server = await startBenchPostgres(log);
  try {
    await server.createDatabase('ours');
    await server.createDatabase('cap');
    const capUrl = server.url('cap');
    const oursUrl = server.url('ours');

    log('seeding CAP on PostgreSQL (its seed.js) and ours (SQLite seed, copied to PostgreSQL) ...');
    const capSeed = startNode('cap-pg-seed', ['seed.js'], { cwd: capPg, logFile: path.join(WORK, 'cap-pg-seed.log'), env: { BENCH_PG_URL: capUrl } });
    const sqliteFile = path.join(WORK, 'ours-bench.sqlite');
    await seedBenchDatabase(sqliteFile);
    const copy = await copyToPostgres(sqliteFile, oursUrl);
    log(`  ours: ${Object.entries(copy.copied).filter(([, n]) => n > 0).map(([t, n]) => `${n} ${t}`).join(', ')} in ${copy.seconds.toFixed(1)} s`);
    const capCode = await new Promise((r) => (capSeed.exited ? r(capSeed.code) : capSeed.child.once('exit', (c) => r(c))));
    if (capCode !== 0) throw new Error(`the CAP seed failed (exit ${capCode}); see ${capSeed.logFile}`);

    const token = oursToken(oursUrl, BENCH_COMPANY.name);
    const one = await startOurs(oursUrl, path.join(WORK, `ours-pg-server-${stamp}.log`), { name: 'ours-pg' });
    const two = await startOurs(oursUrl, path.join(WORK, `ours-pg-w2-server-${stamp}.log`), { name: 'ours-pg-w2', args: ['--workers', '2'] });
    const capPort = await freePort();
    const cap = startNode('cap-pg', ['server-start.js', '--port', String(capPort)], { cwd: capPg, logFile: path.join(WORK, `cap-pg-server-${stamp}.log`), env: { BENCH_PG_URL: capUrl } });
    const capRoot = `http://127.0.0.1:${capPort}/api/v2.0`;
    await waitHttp(cap, `${capRoot}/$metadata`);
    const scoped = (proc) => `${proc.root}/companies(${BENCH_COMPANY.id})`;
    log(`ours-pg pid ${one.pid}; ours-pg-w2 pid ${two.pid} (2 workers); cap-pg pid ${cap.pid}; postgres pid ${server.postmasterPid}`);

    const auth = `Authorization: Bearer ${token}`;
    const headerArgs = ['--header', `ours-pg=${auth}`, '--header', `ours-pg-w2=${auth}`];
    const scenarioArgs = ['--scenarios', work.scenarios];
    const verify = await runHarness(work.runMjs, ['--target', `ours-pg=${scoped(one)}`, '--target', `ours-pg-w2=${scoped(two)}`, ...headerArgs, ...onlyArgs, ...scenarioArgs, '--verify-only'], { cwd: work.harness });
    if (verify !== 0) {
      log('verification failed on ours: not timing');
      return 1;
    }
    const prefix = path.join(RESULTS, `bench-postgres-${stamp}`);
    const pgSamples = `${prefix}-pgcpu.txt`;
    const w2Samples = `${prefix}-w2cpu.txt`;
    const samplers = [sampleTree(tools, server.postmasterPid, pgSamples, 'pg-cpu'), sampleTree(tools, two.pid, w2Samples, 'w2-cpu')];
    const runArgs = [
      '--target', `cap-pg=${capRoot}`, '--target', `ours-pg=${scoped(one)}`, '--target', `ours-pg-w2=${scoped(two)}`,
      ...headerArgs, '--pid', `cap-pg=${cap.pid}`, '--pid', `ours-pg=${one.pid}`,
      '--duration', settings.duration, '--rounds', settings.rounds, '--warmup', settings.warmup, '--connections', settings.connections,
      ...onlyArgs, ...scenarioArgs, '--out', `${prefix}.json`,
    ];
    log(`running the harness: ${settings.duration} s x ${settings.rounds} rounds, ${settings.warmup} s warm-up, ${settings.connections} connections`);
    const code = await runHarness(work.runMjs, runArgs, { cwd: work.harness, teeFile: `${prefix}.txt`, stderrFile: `${prefix}-stderr.txt` });
    const peak = { 'ours-pg': memoryMiB(one.pid), 'cap-pg': memoryMiB(cap.pid) };
    for (const s of samplers) s.child.kill('SIGTERM');
    if (code !== 0 || !fs.existsSync(`${prefix}.json`)) {
      log(`the harness failed (exit ${code})`);
      return 1;
    }
    await new Promise((r) => setTimeout(r, 300));
    const only = onlyArgs[1];
    let noisy;
    if (only === undefined || new RegExp(only).test('noisy-neighbour')) {
      log("noisy neighbour (one instance): ecn-by-key alone, then beside another user's nested any() reads ...");
      noisy = await noisyNeighbour({ base: scoped(one), token, noisyToken: oursToken(oursUrl, BENCH_COMPANY.name, 'NOISY'), seconds: Number(settings.duration) });
      noisy.peakMiB = memoryMiB(one.pid)?.hwm;
    }
    const doc = JSON.parse(fs.readFileSync(`${prefix}.json`, 'utf8'));
    const pgCpu = {};
    for (const t of ['cap-pg', 'ours-pg', 'ours-pg-w2']) pgCpu[t] = await treeCpu(tools, pgSamples, `${prefix}-stderr.txt`, `${prefix}.json`, t);
    const w2Cpu = await treeCpu(tools, w2Samples, `${prefix}-stderr.txt`, `${prefix}.json`, 'ours-pg-w2');
    const report = formatReport(doc, { pgCpu, w2Cpu, peak, version: server.version, settings }) + (noisy === undefined ? '' : `\n${formatNoisyNeighbour(noisy)}`);
    console.log(`\n${report}`);
    fs.appendFileSync(`${prefix}.txt`, `\n${report}\n`);
    log(`wrote ${path.relative(process.cwd(), `${prefix}.txt`)} and ${path.relative(process.cwd(), `${prefix}.json`)}`);
    const ratio = (s, target) => (s.targets[target]?.status === 'ok' && s.targets['cap-pg']?.status === 'ok' ? s.targets[target].rps / s.targets['cap-pg'].rps : undefined);
    appendHistory({ engine: 'postgres', ratios: doc.scenarios.map((s) => [s.name, ratio(s, 'ours-pg')]), peakMiB: peak['ours-pg']?.hwm ?? null, only, noisy });
    appendHistory({ engine: 'postgres --workers 2', ratios: doc.scenarios.map((s) => [s.name, ratio(s, 'ours-pg-w2')]), peakMiB: null, only });
    log(`added the run to ${path.relative(process.cwd(), HISTORY)}`);
    if (noisy !== undefined && !noisy.met) log('the noisy-neighbour target is not met');
    return doc.scenarios.some((s) => s.targets['ours-pg']?.status !== 'ok' || s.targets['ours-pg-w2']?.status !== 'ok') ? 1 : 0;
  } finally {
    await server.stop().catch((e) => log(`stopping PostgreSQL: ${e instanceof Error ? e.message : String(e)}`));
  }
}

function formatReport(doc, { pgCpu, w2Cpu, peak, version, settings }) {
  const head = ['scenario', 'cap-pg req/s', 'ours-pg req/s', 'ours-pg-w2 req/s', 'ours/cap', 'w2/cap', 'node µs/req cap/ours/w2', 'postgres µs/req cap/ours/w2', 'p99 ms cap/ours/w2', 'target'];
  const rows = doc.scenarios.map((s) => {
    const t = (n) => (s.targets[n]?.status === 'ok' ? s.targets[n] : undefined);
    const cap = t('cap-pg');
    const one = t('ours-pg');
    const two = t('ours-pg-w2');
    const r1 = one && cap ? one.rps / cap.rps : undefined;
    const r2 = two && cap ? two.rps / cap.rps : undefined;
    const miss = [];
    if (!(r1 >= RPS_VS_CAP)) miss.push(`1 instance ${f(r1, 1)}x`);
    if (!(r2 >= RPS_VS_CAP)) miss.push(`2 workers ${f(r2, 1)}x`);
    // A scenario CAP cannot answer (its $apply groupby is a 500) has no ratio: it is neither met nor missed.
    const capFailed = `no ratio: CAP fails it (${String(s.targets['cap-pg']?.reason ?? '').slice(0, 40)})`;
    const target = cap === undefined && one !== undefined && two !== undefined ? capFailed : miss.length === 0 ? 'met' : `MISSED (<${RPS_VS_CAP}x): ${miss.join(', ')}`;
    return [
      s.name, f(cap?.rps), f(one?.rps), f(two?.rps), `${f(r1, 1)}x`, `${f(r2, 1)}x`,
      `${f(cap?.serverCpuUsPerReq)}/${f(one?.serverCpuUsPerReq)}/${f(w2Cpu[s.name])}`,
      `${f(pgCpu['cap-pg'][s.name])}/${f(pgCpu['ours-pg'][s.name])}/${f(pgCpu['ours-pg-w2'][s.name])}`,
      `${f(cap?.p99, 1)}/${f(one?.p99, 1)}/${f(two?.p99, 1)}`,
      target,
    ];
  });
  const line = (cells) => `| ${cells.join(' | ')} |`;
  const mem = (p) => (p ? `${p.hwm.toFixed(1)} MiB` : '-');
  return [
    `PostgreSQL ${version}, one server for both; ${settings.duration} s x ${settings.rounds} rounds, ${settings.connections} connections.`,
    'node µs/req: the service process (ours-pg-w2: primary and both workers); postgres µs/req: every PostgreSQL process.',
    line(head),
    line(head.map(() => '---')),
    ...rows.map(line),
    '',
    `peak RSS: ours-pg ${mem(peak['ours-pg'])}, cap-pg ${mem(peak['cap-pg'])}`,
  ].join('\n');
}
