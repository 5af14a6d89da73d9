// `npm run bench:import`: `ecn-odata import` of 100,000 ECNs from a CSV file into a database seeded
// with the demo (for the company and the change reasons the rows refer to), as an operator runs it:
// the compiled CLI with the flags of npm start, through the body validator, the ECN rules, the number
// series and the reference checks. Reports rows/s (wall time of the whole command, start-up included)
// and the peak RSS of the process. Targets: >= 20,000 rows/s, <= 200 MiB.
//
//   npm run bench:import                 # 100,000 rows
//   IMPORT_N=20000 npm run bench:import  # fewer
//   IMPORT_NODE_FLAGS='--max-semi-space-size=16 --max-old-space-size=256' npm run bench:import   # a larger young generation
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO, RESULTS } from './lib/work-folder.mjs';

const N = Number(process.env.IMPORT_N ?? 100_000);
const BIN = path.join(REPO, 'dist', 'src', 'cli', 'main.js');
const PEAK = path.join(REPO, 'bench', 'lib', 'peak-rss.cjs');
// The flags of the ecn-odata command's #! line (tuned for the server's RSS); IMPORT_NODE_FLAGS overrides them.
const FLAGS = (process.env.IMPORT_NODE_FLAGS ?? '--max-semi-space-size=8 --max-old-space-size=256').split(' ').filter(Boolean);
const log = (m) => console.error(`[import] ${m}`);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-bench-import-'));
const db = path.join(dir, 'bench.sqlite');
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
  log('importing');
  const r = run(['import', '--set', 'engChangeNotices', '--company', 'CRONUS', '--file', csv, '--db', db]);
  const rate = N / r.seconds;
  const result = { when: new Date().toISOString(), rows: N, seconds: Number(r.seconds.toFixed(2)), rowsPerSecond: Math.round(rate), peakRssMiB: Number(r.peakMiB.toFixed(1)), output: r.stdout, machine: `${os.cpus().length} cores, ${os.cpus()[0]?.model ?? ''}`, nodeFlags: FLAGS.join(' ') };
  console.log(`import of ${N.toLocaleString('en')} ECNs (node ${FLAGS.join(' ')}): ${r.seconds.toFixed(2)} s, ${Math.round(rate).toLocaleString('en')} rows/s (target >= 20,000), peak RSS ${r.peakMiB.toFixed(1)} MiB (target <= 200)`);
  console.log(r.stdout);
  fs.mkdirSync(RESULTS, { recursive: true });
  fs.writeFileSync(path.join(RESULTS, `import-${result.when.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}.json`), `${JSON.stringify(result, null, 2)}\n`);
  if (rate < 20_000 || r.peakMiB > 200) process.exitCode = 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
