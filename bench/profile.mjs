// CPU profile of our server under load, one scenario at a time: starts ours with --cpu-prof on the
// bench data set, drives the harness's scenarios with autocannon, stops the server (which writes the
// profile) and prints the top functions by self time and by total time.
//
//   npm run build && node bench/profile.mjs [--only REGEX] [--duration S] [--top N] [--reuse-db]
//   node bench/profile.mjs --summarize FILE.cpuprofile
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { prepareWorkFolder, WORK } from './lib/work-folder.mjs';
import { seedBenchDatabase, BENCH_COMPANY } from './lib/bench-data.mjs';
import { oursToken, startOurs, stop, stopAll } from './lib/servers.mjs';

const { values: a } = parseArgs({
  options: {
    only: { type: 'string', default: '^(ecn|task)' },
    duration: { type: 'string', default: '5' },
    top: { type: 'string', default: '25' },
    connections: { type: 'string', default: '16' },
    'reuse-db': { type: 'boolean', default: false },
    summarize: { type: 'string' },
  },
});

/** Top functions of a .cpuprofile by self and total time. */
export function summarize(file, top = 25) {
  const prof = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const interval = (prof.endTime - prof.startTime) / Math.max(1, prof.samples.length); // µs per sample
  const self = new Map();
  const total = new Map();
  const keyOf = (n) => {
    const cf = n.callFrame;
    const url = cf.url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules\/)/, '$1').replace(/^.*\/dist\//, 'dist/');
    return `${cf.functionName || '(anonymous)'} ${url ? `${url}:${cf.lineNumber + 1}` : ''}`.trim();
  };
  const allSamples = prof.samples.length;
  const walk = (n, stack) => {
    const k = keyOf(n);
    self.set(k, (self.get(k) ?? 0) + n.hitCount);
    let sum = n.hitCount;
    const fresh = !stack.has(k);
    if (fresh) stack.add(k);
    for (const c of n.children ?? []) sum += walk(byId.get(c), stack);
    if (fresh) {
      stack.delete(k);
      total.set(k, (total.get(k) ?? 0) + sum);
    }
    return sum;
  };
  walk(byId.get(prof.nodes[0].id), new Set());
  const idle = [...self.entries()].filter(([k]) => /^\((idle|program|garbage collector)\)/.test(k));
  const pct = (x) => ((100 * x) / allSamples).toFixed(1).padStart(5);
  const lines = [`${file}: ${allSamples} samples, ${(interval).toFixed(0)} µs each; ${idle.map(([k, v]) => `${k.split(' ')[0]} ${pct(v).trim()}%`).join(', ')}`, 'self %  function'];
  for (const [k, v] of [...self.entries()].sort((x, y) => y[1] - x[1]).slice(0, top)) lines.push(`${pct(v)}  ${k}`);
  lines.push('total %  function');
  for (const [k, v] of [...total.entries()].filter(([k]) => !k.startsWith('(root)')).sort((x, y) => y[1] - x[1]).slice(0, top)) lines.push(`${pct(v)}  ${k}`);
  return lines.join('\n');
}

async function main() {
  if (a.summarize !== undefined) {
    console.log(summarize(a.summarize, Number(a.top)));
    return;
  }
  const work = prepareWorkFolder();
  const require = createRequire(path.join(work.harness, 'package.json'));
  const autocannon = require('autocannon');
  const db = path.join(WORK, 'ours-profile.sqlite');
  if (!a['reuse-db'] || !fs.existsSync(db)) await seedBenchDatabase(db);
  let token;
  try {
    token = oursToken(db, BENCH_COMPANY.name);
  } catch (e) {
    if (!a['reuse-db']) throw e;
    token = undefined;
  }
  const { scenarios, placeholders } = JSON.parse(fs.readFileSync(work.scenarios, 'utf8'));
  const only = new RegExp(a.only);
  const profDir = path.join(WORK, 'profiles');
  fs.mkdirSync(profDir, { recursive: true });
  for (const sc of scenarios.filter((s) => only.test(s.name))) {
    const before = new Set(fs.readdirSync(profDir));
    const ours = await startOurs(db, path.join(WORK, 'ours-profile.log'), { nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profDir}`] });
    const base = `${ours.root}/companies(${BENCH_COMPANY.id})/`;
    const headers = { Accept: 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(sc.headers ?? {}) };
    const values = {};
    for (const [k, def] of Object.entries(placeholders)) {
      if (!sc.path.includes(`{${k}}`) && !JSON.stringify(sc.body ?? '').includes(`{${k}}`)) continue;
      const r = await fetch(new URL(def.path, base), { headers });
      values[k] = def.pick.split('.').reduce((o, p) => o?.[p], await r.json());
    }
    const fill = (s) => s.replace(/\{(\w+)\}/g, (_, k) => values[k]);
    const body = sc.body == null ? undefined : fill(typeof sc.body === 'string' ? sc.body : JSON.stringify(sc.body));
    const res = await autocannon({ url: new URL(fill(sc.path), base).href, method: sc.method ?? 'GET', headers: { ...headers, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body, connections: Number(a.connections), duration: Number(a.duration) });
    await stop(ours);
    const file = fs.readdirSync(profDir).find((f) => !before.has(f) && f.endsWith('.cpuprofile'));
    const named = path.join(profDir, `${sc.name}.cpuprofile`);
    if (file !== undefined) fs.renameSync(path.join(profDir, file), named);
    console.log(`\n## ${sc.name}: ${(res.requests.average).toFixed(0)} req/s, ${res.non2xx} non-2xx`);
    if (file !== undefined) console.log(summarize(named, Number(a.top)));
  }
}

try {
  await main();
} finally {
  await stopAll();
}
