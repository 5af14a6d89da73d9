// Measures the cost of server-driven pages by depth: follows @odata.nextLink over N ECNs through the
// core (no socket) and reports the time of page 1, the middle page and the last page, median of 5
// passes, next to $skip paging (OFFSET) for contrast. Run: npm run bench:paging [-- --rows N --page P]
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createService } from '../dist/src/service.js';
import { defaultOptions } from '../dist/src/config.js';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROWS = arg('rows', 100_000);
const PAGE = arg('page', 2_000);
const PASSES = 5;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-paging-'));
const service = await createService(defaultOptions({ dbFile: path.join(dir, 'paging.sqlite'), logLevel: 'silent' }));
const company = randomUUID();
const raw = service.db.raw;
raw.prepare(`INSERT INTO "companies" ("id", "name", "_version") VALUES (?, 'BENCH', 1)`).run(company);
const insert = raw.prepare(`INSERT INTO "engChangeNotices" ("id", "_companyId", "number", "status", "sourceType", "sourceStatus", "sourceSalesDocumentType", "sourceSequence", "lastModifiedDateTime", "_version") VALUES (?, ?, ?, 'New', '_x0020_', '_x0020_', '_x0020_', ?, '2026-01-01T00:00:00.000Z', 1)`);
raw.transaction(() => {
  for (let i = 1; i <= ROWS; i++) insert.run(randomUUID(), company, `ECN${String(i).padStart(7, '0')}`, i % 101);
})();
raw.exec('ANALYZE');

const root = 'http://bench/api/v2.0';
const get = async (url) => {
  const q = url.indexOf('?');
  const t0 = process.hrtime.bigint();
  const res = await service.handle({
    method: 'GET', path: q < 0 ? url : url.slice(0, q), rawQuery: q < 0 ? '' : url.slice(q + 1),
    headers: { prefer: `odata.maxpagesize=${PAGE}` }, serviceRootUrl: root, requestId: 'bench',
    principal: { userId: 'BENCH', companies: 'all' },
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (res.status !== 200) throw new Error(`${res.status} ${res.body}`);
  return { ms, body: JSON.parse(res.body) };
};

async function keysetPass(start) {
  const times = [];
  let url = start;
  let rows = 0;
  while (url !== undefined) {
    const { ms, body } = await get(url);
    times.push(ms);
    rows += body.value.length;
    url = body['@odata.nextLink']?.slice(root.length);
  }
  if (rows !== ROWS) throw new Error(`read ${rows} rows, expected ${ROWS}`);
  return times;
}

async function offsetPass(base) {
  const times = [];
  for (let skip = 0; skip < ROWS; skip += PAGE) times.push((await get(`${base}&$top=${PAGE}&$skip=${skip}`)).ms);
  return times;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function summarize(label, passes) {
  const pages = passes[0].length;
  const at = (i) => median(passes.map((p) => p[i]));
  const first = at(0), middle = at(Math.floor(pages / 2)), last = at(pages - 1);
  console.log(`${label.padEnd(44)} pages=${pages}  first=${first.toFixed(2)} ms  middle=${middle.toFixed(2)} ms  last=${last.toFixed(2)} ms  last/first=${(last / first).toFixed(2)}`);
}

const scoped = `/companies(${company})/engChangeNotices`;
for (const [label, url] of [['keyset, default order (number)', `${scoped}?$select=id,number`], ['keyset, $orderby=sourceSequence desc', `${scoped}?$select=id,number&$orderby=sourceSequence desc`]]) {
  await keysetPass(url);
  const passes = [];
  for (let i = 0; i < PASSES; i++) passes.push(await keysetPass(url));
  summarize(label, passes);
}
{
  const passes = [];
  for (let i = 0; i < 2; i++) passes.push(await offsetPass(`${scoped}?$select=id,number`));
  summarize('for contrast: $skip/$top (OFFSET) paging', passes);
}
console.log(`rows=${ROWS} page=${PAGE} node=${process.version} cpus=${os.cpus().length}`);
await service.close();
fs.rmSync(dir, { recursive: true, force: true });
