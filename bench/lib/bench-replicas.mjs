// `npm run bench -- --engine postgres --replicas 1`: read scale-out (conventions §13). A PostgreSQL
// primary and a hot standby streaming from it (scripts/postgres-pair.mjs), the bench rows copied to the
// primary as in the PostgreSQL run; ours without a replica (ours-pg) beside ours with one
// (ours-pg-replica, `serve --read-replica`), both sent `Data-Access-Intent: ReadOnly` on the read
// scenarios (the GETs, and the $batch of GETs), which ours without a replica ignores. CPU per request
// of the primary's and the standby's processes separately (the CAP peer's process-tree sampler and
// report), and of each service process (the harness's --pid). Target (issue 43): with the replica, the
// primary's CPU per read is at most 10% of its figure without one; req/s are reported, not targeted.
import fs from 'node:fs';
import path from 'node:path';
import { RESULTS, WORK, installPeer } from './work-folder.mjs';
import { seedBenchDatabase, BENCH_COMPANY } from './bench-data.mjs';
import { copyToPostgres } from './copy-to-postgres.mjs';
import { memoryMiB, oursToken, startOurs } from './servers.mjs';
import { runHarness, sampleTree, treeCpu } from './bench-postgres.mjs';
import { startPostgresPair } from '../../scripts/postgres-pair.mjs';

/** The primary's CPU per read with the replica, at most this share of its figure without one. */
const PRIMARY_SHARE = 0.1;
const f = (x, d = 0) => (x === undefined || x === null || Number.isNaN(x) ? '-' : x.toFixed(d));

/** true for a scenario that only reads: a GET, or a `$batch` whose requests are all GETs. */
function isRead(s) {
  const method = s.method ?? 'GET';
  if (method === 'GET') return true;
  if (method !== 'POST' || !String(s.path).endsWith('$batch') || typeof s.body !== 'string') return false;
  const lines = [...s.body.matchAll(/^([A-Z]+) \S+ HTTP\/1\.1/gm)].map((m) => m[1]);
  return lines.length > 0 && lines.every((m) => m === 'GET');
}

/** The `--only` regex of the read scenarios (within the caller's --only, if any). */
function readsOnly(scenarioFile, only) {
  const within = only === undefined ? undefined : new RegExp(only);
  const names = JSON.parse(fs.readFileSync(scenarioFile, 'utf8')).scenarios.filter((s) => isRead(s) && (within === undefined || within.test(s.name))).map((s) => s.name);
  return `^(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`;
}

/** Waits until ours-with-replica's /ready says its replica is ok and caught up (it has replayed the copy). */
async function replicaCaughtUp(root, log, ms = 300_000) {
  const ready = `${new URL(root).origin}/ready`;
  for (const until = Date.now() + ms; Date.now() < until; ) {
    const replica = (await (await fetch(ready)).json()).replicas?.[0];
    if (replica?.state === 'ok' && replica.lagMs === 0) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  log('the replica did not catch up in time; timing anyway (reads then fall back to the primary)');
}

/** The replica run; `work` is prepareWorkFolder()'s result. Returns the exit code. */
export async function benchReplicas({ work, settings, only, stamp, log }) {
  const capPg = path.join(work.harness, 'peers', 'cap-postgres');
  installPeer(capPg, log);
  const tools = path.join(capPg, 'tools');
  const t0 = Date.now();
  const pair = await startPostgresPair({ parent: WORK, password: 'bench-pw', flags: ['-c', 'shared_buffers=256MB', '-c', 'max_connections=200'] });
  try {
    log(`PostgreSQL primary pid ${pair.primaryPid}, hot standby pid ${pair.standbyPid}, started in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await pair.createDatabase('ours');
    const primaryUrl = pair.url('ours');
    const sqliteFile = path.join(WORK, 'ours-bench.sqlite');
    await seedBenchDatabase(sqliteFile);
    const copy = await copyToPostgres(sqliteFile, primaryUrl);
    log(`  ours: ${Object.entries(copy.copied).filter(([, n]) => n > 0).map(([t, n]) => `${n} ${t}`).join(', ')} copied to the primary in ${copy.seconds.toFixed(1)} s`);
    const token = oursToken(primaryUrl, BENCH_COMPANY.name);
    const plain = await startOurs(primaryUrl, path.join(WORK, `ours-pg-server-${stamp}.log`), { name: 'ours-pg' });
    const replicated = await startOurs(primaryUrl, path.join(WORK, `ours-pg-replica-server-${stamp}.log`), { name: 'ours-pg-replica', args: ['--read-replica', pair.url('ours', 'standby')] });
    await replicaCaughtUp(replicated.root, log);
    const scoped = (proc) => `${proc.root}/companies(${BENCH_COMPANY.id})`;
    const headers = ['ours-pg', 'ours-pg-replica'].flatMap((t) => ['--header', `${t}=Authorization: Bearer ${token}`, '--header', `${t}=Data-Access-Intent: ReadOnly`]);
    const targets = ['--target', `ours-pg=${scoped(plain)}`, '--target', `ours-pg-replica=${scoped(replicated)}`];
    const onlyArgs = ['--only', readsOnly(work.scenarios, only)];
    const scenarioArgs = ['--scenarios', work.scenarios];
    if ((await runHarness(work.runMjs, [...targets, ...headers, ...onlyArgs, ...scenarioArgs, '--verify-only'], { cwd: work.harness })) !== 0) {
      log('verification failed on ours: not timing');
      return 1;
    }
    const prefix = path.join(RESULTS, `bench-replicas-${stamp}`);
    const primarySamples = `${prefix}-primary-cpu.txt`;
    const standbySamples = `${prefix}-standby-cpu.txt`;
    const samplers = [sampleTree(tools, pair.primaryPid, primarySamples, 'primary-cpu'), sampleTree(tools, pair.standbyPid, standbySamples, 'standby-cpu')];
    const runArgs = [
      ...targets, ...headers, '--pid', `ours-pg=${plain.pid}`, '--pid', `ours-pg-replica=${replicated.pid}`,
      '--duration', settings.duration, '--rounds', settings.rounds, '--warmup', settings.warmup, '--connections', settings.connections,
      ...onlyArgs, ...scenarioArgs, '--out', `${prefix}.json`,
    ];
    log(`running the harness on the read scenarios: ${settings.duration} s x ${settings.rounds} rounds, ${settings.warmup} s warm-up, ${settings.connections} connections`);
    const code = await runHarness(work.runMjs, runArgs, { cwd: work.harness, teeFile: `${prefix}.txt`, stderrFile: `${prefix}-stderr.txt` });
    const peak = { 'ours-pg': memoryMiB(plain.pid), 'ours-pg-replica': memoryMiB(replicated.pid) };
    for (const s of samplers) s.child.kill('SIGTERM');
    if (code !== 0 || !fs.existsSync(`${prefix}.json`)) {
      log(`the harness failed (exit ${code})`);
      return 1;
    }
    await new Promise((r) => setTimeout(r, 300));
    const doc = JSON.parse(fs.readFileSync(`${prefix}.json`, 'utf8'));
    const cpu = {};
    for (const [server, samples] of [['primary', primarySamples], ['standby', standbySamples]]) {
      for (const t of ['ours-pg', 'ours-pg-replica']) cpu[`${server} ${t}`] = await treeCpu(tools, samples, `${prefix}-stderr.txt`, `${prefix}.json`, t);
    }
    const { text, missed } = formatReport(doc, cpu, peak, settings);
    console.log(`\n${text}`);
    fs.appendFileSync(`${prefix}.txt`, `\n${text}\n`);
    log(`wrote ${path.relative(process.cwd(), `${prefix}.txt`)} and ${path.relative(process.cwd(), `${prefix}.json`)}`);
    const failed = doc.scenarios.some((s) => s.targets['ours-pg']?.status !== 'ok' || s.targets['ours-pg-replica']?.status !== 'ok');
    return failed || missed ? 1 : 0;
  } finally {
    await pair.stop().catch((e) => log(`stopping PostgreSQL: ${e instanceof Error ? e.message : String(e)}`));
  }
}

function formatReport(doc, cpu, peak, settings) {
  const head = ['scenario', 'req/s without / with replica', 'node µs/req without / with', 'primary µs/req without / with', 'with/without', 'replica µs/req with', 'p99 ms without / with', 'target'];
  let missed = false;
  const rows = doc.scenarios.map((s) => {
    const t = (n) => (s.targets[n]?.status === 'ok' ? s.targets[n] : undefined);
    const plain = t('ours-pg');
    const replicated = t('ours-pg-replica');
    const before = cpu['primary ours-pg'][s.name];
    const after = cpu['primary ours-pg-replica'][s.name];
    const share = before > 0 && after !== undefined ? after / before : undefined;
    const met = share !== undefined && share <= PRIMARY_SHARE;
    if (!met) missed = true;
    return [
      s.name, `${f(plain?.rps)} / ${f(replicated?.rps)}`, `${f(plain?.serverCpuUsPerReq)} / ${f(replicated?.serverCpuUsPerReq)}`,
      `${f(before)} / ${f(after)}`, share === undefined ? '-' : `${(share * 100).toFixed(1)}%`, f(cpu['standby ours-pg-replica'][s.name]),
      `${f(plain?.p99, 1)} / ${f(replicated?.p99, 1)}`, met ? 'met' : `MISSED (>${PRIMARY_SHARE * 100}%)`,
    ];
  });
  const line = (cells) => `| ${cells.join(' | ')} |`;
  const mem = (p) => (p ? `${p.hwm.toFixed(1)} MiB` : '-');
  const text = [
    `Read scenarios with Data-Access-Intent: ReadOnly; ours without a replica and ours with one hot standby; ${settings.duration} s x ${settings.rounds} rounds, ${settings.connections} connections.`,
    'primary µs/req and replica µs/req: every process of that PostgreSQL server; target: the primary with the replica at most 10% of its figure without.',
    line(head),
    line(head.map(() => '---')),
    ...rows.map(line),
    '',
    `peak RSS: ours-pg ${mem(peak['ours-pg'])}, ours-pg-replica ${mem(peak['ours-pg-replica'])}`,
  ].join('\n');
  return { text, missed };
}
