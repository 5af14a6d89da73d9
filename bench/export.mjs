// `npm run bench:export`: a full export the way Power Query reads a table: GET the entity set and
// follow @odata.nextLink until there is none, with the server's default page size (no Prefer
// header), over HTTP on loopback. Reports rows/s, the latency of the first, middle and last page,
// and the server's peak RSS (VmHWM). Two runs:
//   1. 1,000,000 ECNs (the CAP data set's generator, without comments and BOM lines);
//   2. 100,000 ECNs with 5 comments each, read with $expand=engChangeNoticeComments.
//
//   npm run bench:export                        # both
//   EXPORT_N=200000 npm run bench:export        # fewer ECNs in run 1 (run 2 stays 100,000)
//   npm run bench:export -- --only expand       # one run: plain | expand
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { RESULTS, WORK } from './lib/work-folder.mjs';
import { BENCH_COMPANY, seedBenchDatabase } from './lib/bench-data.mjs';
import { memoryMiB, OURS_NODE_FLAGS, oursToken, startOurs, stop, stopAll } from './lib/servers.mjs';

const { values: args } = parseArgs({ options: { only: { type: 'string' } } });
const STAMP = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
const log = (m) => console.error(`[export] ${m}`);

const RUNS = [
  { name: 'plain', n: Number(process.env.EXPORT_N ?? 1_000_000), comments: 0, query: '' },
  { name: 'expand', n: 100_000, comments: 5, query: '?$expand=engChangeNoticeComments' },
];

/** Follows nextLinks from `url`; gives per-page timings and totals. */
async function exportAll(url, headers, pid) {
  const pages = [];
  let rows = 0;
  let nested = 0;
  let bytes = 0;
  let peak = 0;
  const t0 = performance.now();
  for (let next = url; next !== undefined; ) {
    const p0 = performance.now();
    const res = await fetch(next, { headers });
    const text = await res.text();
    const ms = performance.now() - p0;
    if (res.status !== 200) throw new Error(`GET ${next}: HTTP ${res.status} ${text.slice(0, 300)}`);
    const body = JSON.parse(text);
    rows += body.value.length;
    for (const e of body.value) nested += Array.isArray(e.engChangeNoticeComments) ? e.engChangeNoticeComments.length : 0;
    bytes += Buffer.byteLength(text);
    pages.push({ rows: body.value.length, ms, bytes: Buffer.byteLength(text) });
    peak = Math.max(peak, memoryMiB(pid)?.hwm ?? 0);
    next = body['@odata.nextLink'];
  }
  return { pages, rows, nested, bytes, seconds: (performance.now() - t0) / 1000, peakRssMiB: peak };
}

async function run(r) {
  const file = path.join(WORK, `export-${r.name}.sqlite`);
  log(`${r.name}: seeding ${r.n.toLocaleString('en')} ECNs${r.comments ? ` with ${r.comments} comments each` : ''} ...`);
  const seeded = await seedBenchDatabase(file, { n: r.n, ecos: 0, comments: r.comments, bomLines: 0 });
  log(`  seeded in ${seeded.seconds.toFixed(1)} s (${(fs.statSync(file).size / 1048576).toFixed(0)} MiB)`);
  const token = oursToken(file, BENCH_COMPANY.name);
  const ours = await startOurs(file, path.join(WORK, `export-${r.name}-server.log`));
  try {
    const headers = { Accept: 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) };
    const url = `${ours.root}/companies(${BENCH_COMPANY.id})/engChangeNotices${r.query}`;
    const startRss = memoryMiB(ours.pid)?.rss ?? 0;
    const result = await exportAll(url, headers, ours.pid);
    const hwm = memoryMiB(ours.pid)?.hwm ?? result.peakRssMiB;
    if (result.rows !== r.n) throw new Error(`read ${result.rows} rows, expected ${r.n}`);
    if (r.comments && result.nested !== r.n * r.comments) throw new Error(`read ${result.nested} comments, expected ${r.n * r.comments}`);
    const ms = result.pages.map((p) => p.ms);
    const first = ms[0];
    const middle = ms[Math.floor(ms.length / 2)];
    const last = ms[ms.length - 1];
    return { ...r, pagesCount: result.pages.length, pageSize: result.pages[0]?.rows, rows: result.rows, nested: result.nested, mib: result.bytes / 1048576, seconds: result.seconds, rowsPerS: result.rows / result.seconds, first, middle, last, lastOverFirst: last / first, startRssMiB: startRss, peakRssMiB: hwm, pages: result.pages };
  } finally {
    await stop(ours);
  }
}

function report(results) {
  const f = (x, d = 1) => x.toFixed(d);
  const lines = [
    `export: follow @odata.nextLink from the first page (default page size, no Prefer header), over HTTP on loopback; server on node ${process.version} ${OURS_NODE_FLAGS.join(' ') || '(no flags)'}; ${new Date().toISOString()}`,
    '| run | rows | pages | MiB | seconds | rows/s | first page ms | middle page ms | last page ms | last/first | peak RSS MiB |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...results.map((r) => `| ${r.name}${r.query ? ` (${r.query.slice(1)})` : ''} | ${r.rows.toLocaleString('en')}${r.nested ? ` + ${r.nested.toLocaleString('en')} comments` : ''} | ${r.pagesCount} | ${f(r.mib, 0)} | ${f(r.seconds)} | ${Math.round(r.rowsPerS).toLocaleString('en')} | ${f(r.first)} | ${f(r.middle)} | ${f(r.last)} | ${f(r.lastOverFirst, 2)} | ${f(r.peakRssMiB)} |`),
  ];
  const plain = results.find((r) => r.name === 'plain');
  if (plain) {
    const okPages = plain.lastOverFirst <= 1.5;
    const okRss = plain.peakRssMiB <= 200;
    lines.push('', `targets (issue 7) for the 1,000,000-row export: last page <= 1.5x the first: ${okPages ? 'met' : 'MISSED'} (${f(plain.lastOverFirst, 2)}x); peak RSS <= 200 MiB: ${okRss ? 'met' : 'MISSED'} (${f(plain.peakRssMiB)} MiB)`);
  }
  return lines.join('\n');
}

async function main() {
  fs.mkdirSync(RESULTS, { recursive: true });
  const results = [];
  for (const r of RUNS.filter((x) => args.only === undefined || x.name === args.only)) results.push(await run(r));
  const text = report(results);
  console.log(text);
  const out = path.join(RESULTS, `export-${STAMP}`);
  fs.writeFileSync(`${out}.txt`, `${text}\n`);
  fs.writeFileSync(`${out}.json`, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, results }, null, 2)}\n`);
  fs.copyFileSync(`${out}.txt`, path.join(RESULTS, 'export-latest.txt'));
  log(`wrote ${path.relative(process.cwd(), out)}.txt and .json`);
  return 0;
}

process.once('SIGINT', () => process.exit(130));
let code = 1;
try {
  code = await main();
} catch (e) {
  console.error(`[export] ${e instanceof Error ? e.message : String(e)}`);
} finally {
  await stopAll();
}
process.exit(code);
