// `npm run bench:export`: a full export the way Power Query reads a table: GET the entity set and
// follow @odata.nextLink until there is none, with the server's default page size (no Prefer
// header), over HTTP on loopback. Reports rows/s, bytes on the wire, the latency of the first,
// middle and last page, and the server's peak RSS (VmHWM). Three runs, each on a fresh server:
//   1. plain: 1,000,000 ECNs (the CAP data set's generator, without comments and BOM lines);
//   2. gzip: the same export with `Accept-Encoding: gzip` (the client decompresses as it reads);
//   3. expand: 100,000 ECNs with 5 comments each, read with $expand=engChangeNoticeComments.
//
//   npm run bench:export                        # all three
//   EXPORT_N=200000 npm run bench:export        # fewer ECNs in runs 1 and 2 (run 3 stays 100,000)
//   npm run bench:export -- --only gzip         # one run: plain | gzip | expand
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { parseArgs } from 'node:util';
import { RESULTS, WORK } from './lib/work-folder.mjs';
import { BENCH_COMPANY, seedBenchDatabase } from './lib/bench-data.mjs';
import { memoryMiB, oursNodeFlags, oursToken, startOurs, stop, stopAll } from './lib/servers.mjs';

const { values: args } = parseArgs({ options: { only: { type: 'string' } } });
const STAMP = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
const log = (m) => console.error(`[export] ${m}`);

const N = Number(process.env.EXPORT_N ?? 1_000_000);
/** Runs; runs with the same `data` share one seeded database. */
const RUNS = [
  { name: 'plain', data: 'plain', n: N, comments: 0, query: '' },
  { name: 'gzip', data: 'plain', n: N, comments: 0, query: '', encoding: 'gzip' },
  { name: 'expand', data: 'expand', n: 100_000, comments: 5, query: '?$expand=engChangeNoticeComments' },
];

/** GET one page: the body text (decompressed as it arrives when the server compressed it) and the bytes on the wire. */
function getPage(url, headers) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      let wire = 0;
      res.on('data', (c) => (wire += c.length));
      const coding = res.headers['content-encoding'];
      const body = coding === 'gzip' ? res.pipe(zlib.createGunzip()) : coding === 'br' ? res.pipe(zlib.createBrotliDecompress()) : res;
      const chunks = [];
      body.on('data', (c) => chunks.push(c));
      body.on('end', () => resolve({ status: res.statusCode, coding, text: Buffer.concat(chunks).toString('utf8'), wire }));
      body.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** Follows nextLinks from `url`; gives per-page timings and totals. */
async function exportAll(url, headers, pid) {
  const pages = [];
  let rows = 0;
  let nested = 0;
  let bytes = 0;
  let wire = 0;
  let peak = 0;
  const codings = new Set();
  const t0 = performance.now();
  for (let next = url; next !== undefined; ) {
    const p0 = performance.now();
    const res = await getPage(next, headers);
    const text = res.text;
    const ms = performance.now() - p0;
    if (res.status !== 200) throw new Error(`GET ${next}: HTTP ${res.status} ${text.slice(0, 300)}`);
    codings.add(res.coding ?? 'identity');
    const body = JSON.parse(text);
    rows += body.value.length;
    for (const e of body.value) nested += Array.isArray(e.engChangeNoticeComments) ? e.engChangeNoticeComments.length : 0;
    bytes += Buffer.byteLength(text);
    wire += res.wire;
    pages.push({ rows: body.value.length, ms, bytes: Buffer.byteLength(text), wire: res.wire });
    peak = Math.max(peak, memoryMiB(pid)?.hwm ?? 0);
    next = body['@odata.nextLink'];
  }
  return { pages, rows, nested, bytes, wire, codings: [...codings], seconds: (performance.now() - t0) / 1000, peakRssMiB: peak };
}

/** Seeds each data set once (the first run that needs it). */
const seededFiles = new Map();
async function seeded(r) {
  const file = path.join(WORK, `export-${r.data}.sqlite`);
  if (seededFiles.has(file)) return file;
  log(`${r.data}: seeding ${r.n.toLocaleString('en')} ECNs${r.comments ? ` with ${r.comments} comments each` : ''} ...`);
  const result = await seedBenchDatabase(file, { n: r.n, ecos: 0, comments: r.comments, bomLines: 0 });
  log(`  seeded in ${result.seconds.toFixed(1)} s (${(fs.statSync(file).size / 1048576).toFixed(0)} MiB)`);
  seededFiles.set(file, true);
  return file;
}

async function run(r) {
  const file = await seeded(r);
  const token = oursToken(file, BENCH_COMPANY.name);
  log(`${r.name}: exporting${r.encoding ? ` with Accept-Encoding: ${r.encoding}` : ''} ...`);
  const ours = await startOurs(file, path.join(WORK, `export-${r.name}-server.log`));
  try {
    const headers = { Accept: 'application/json', ...(r.encoding ? { 'Accept-Encoding': r.encoding } : {}), ...(token ? { Authorization: `Bearer ${token}` } : {}) };
    const url = `${ours.root}/companies(${BENCH_COMPANY.id})/engChangeNotices${r.query}`;
    const startRss = memoryMiB(ours.pid)?.rss ?? 0;
    const result = await exportAll(url, headers, ours.pid);
    const hwm = memoryMiB(ours.pid)?.hwm ?? result.peakRssMiB;
    if (result.rows !== r.n) throw new Error(`read ${result.rows} rows, expected ${r.n}`);
    if (r.comments && result.nested !== r.n * r.comments) throw new Error(`read ${result.nested} comments, expected ${r.n * r.comments}`);
    if (result.codings.join() !== (r.encoding ?? 'identity')) throw new Error(`responses came with ${result.codings.join(', ')}, expected ${r.encoding ?? 'identity'}`);
    const ms = result.pages.map((p) => p.ms);
    const first = ms[0];
    const middle = ms[Math.floor(ms.length / 2)];
    const last = ms[ms.length - 1];
    return { ...r, pagesCount: result.pages.length, pageSize: result.pages[0]?.rows, rows: result.rows, nested: result.nested, mib: result.bytes / 1048576, wireMib: result.wire / 1048576, seconds: result.seconds, rowsPerS: result.rows / result.seconds, first, middle, last, lastOverFirst: last / first, startRssMiB: startRss, peakRssMiB: hwm, pages: result.pages };
  } finally {
    await stop(ours);
  }
}

function report(results) {
  const f = (x, d = 1) => x.toFixed(d);
  const lines = [
    `export: follow @odata.nextLink from the first page (default page size, no Prefer header), over HTTP on loopback (node:http client, JSON parsing and decompression included); server on node ${process.version} ${oursNodeFlags(path.join(WORK, 'export.sqlite')).join(' ') || '(no flags)'}; ${new Date().toISOString()}`,
    '| run | rows | pages | MiB of JSON | MiB on the wire | seconds | rows/s | first page ms | middle page ms | last page ms | last/first | peak RSS MiB |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...results.map((r) => `| ${r.name}${r.query ? ` (${r.query.slice(1)})` : ''}${r.encoding ? ` (Accept-Encoding: ${r.encoding})` : ''} | ${r.rows.toLocaleString('en')}${r.nested ? ` + ${r.nested.toLocaleString('en')} comments` : ''} | ${r.pagesCount} | ${f(r.mib, 0)} | ${f(r.wireMib, 1)} | ${f(r.seconds)} | ${Math.round(r.rowsPerS).toLocaleString('en')} | ${f(r.first)} | ${f(r.middle)} | ${f(r.last)} | ${f(r.lastOverFirst, 2)} | ${f(r.peakRssMiB)} |`),
  ];
  const plain = results.find((r) => r.name === 'plain');
  if (plain) {
    const okPages = plain.lastOverFirst <= 1.5;
    const okRss = plain.peakRssMiB <= 200;
    lines.push('', `targets (issue 7) for the ${plain.rows.toLocaleString('en')}-row export: last page <= 1.5x the first: ${okPages ? 'met' : 'MISSED'} (${f(plain.lastOverFirst, 2)}x); peak RSS <= 200 MiB: ${okRss ? 'met' : 'MISSED'} (${f(plain.peakRssMiB)} MiB)`);
  }
  const gzip = results.find((r) => r.name === 'gzip');
  if (gzip) {
    const ratio = plain ? gzip.rowsPerS / plain.rowsPerS : undefined;
    const okSpeed = ratio === undefined ? 'not checked (run plain too)' : `${ratio >= 0.5 ? 'met' : 'MISSED'} (${f(ratio * 100, 0)} %)`;
    const okRss = gzip.peakRssMiB <= 200;
    lines.push(`targets (issue 15) for the gzip export: rows/s >= 50 % of plain: ${okSpeed}; peak RSS <= 200 MiB: ${okRss ? 'met' : 'MISSED'} (${f(gzip.peakRssMiB)} MiB); ${f(gzip.wireMib, 1)} MiB on the wire for ${f(gzip.mib, 0)} MiB of JSON (${f(gzip.mib / gzip.wireMib, 1)}x)`);
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
