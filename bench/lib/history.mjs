// One line per `npm run bench` run in bench/history.tsv (committed, unlike bench/results/): when, which
// commit, which engine and process layout, ours against the peer per scenario, ours against the raw
// anchor where it has a target, and our peak RSS. The README links it; the numbers live here, not in
// the README or in code comments.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const HISTORY = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'history.tsv');
const HEADER = 'date\tcommit\tengine\tours/peer req/s per scenario\tours/raw\tpeak RSS MiB\tnoisy neighbour p99 ms alone/beside\n';

/** The short commit the run measured, with `+changes` when the work tree differed from it. */
function commit() {
  try {
    const cwd = path.dirname(HISTORY);
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', '../src', '../metadata'], { cwd, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head}+changes` : head;
  } catch {
    return 'unknown';
  }
}

/** The commit when the bench started (the build it measures), not when it ended. */
const MEASURED = commit();

/**
 * Appends one run: `ratios` are [scenario, ours/peer] pairs (undefined where a target failed), `raw`
 * [scenario, ours/raw] pairs, `peakMiB` our peak RSS (null when unknown), `noisy` the noisy-neighbour
 * result (bench/lib/noisy-neighbour.mjs) when it ran.
 */
export function appendHistory({ engine, ratios, raw = [], peakMiB, only, noisy }) {
  const f = (x, d) => (x === undefined || x === null || Number.isNaN(x) ? '-' : x.toFixed(d));
  const line = [
    new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    MEASURED,
    only === undefined ? engine : `${engine} (only ${only})`,
    ratios.map(([name, r]) => `${name}=${f(r, 1)}x`).join(' '),
    raw.map(([name, r]) => `${name}=${f(r, 2)}x`).join(' ') || '-',
    f(peakMiB, 1),
    noisy === undefined ? '-' : `${f(noisy.quietP99, 1)}/${f(noisy.noisyP99, 1)} (${f(noisy.ratio, 1)}x)`,
  ].join('\t');
  if (!fs.existsSync(HISTORY)) fs.writeFileSync(HISTORY, HEADER);
  fs.appendFileSync(HISTORY, `${line}\n`);
  return line;
}
