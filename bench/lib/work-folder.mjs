// The bench work folder (bench/.work/, git-ignored): a copy of the shared harness (run.mjs,
// scenarios.json, the CAP peer, the raw anchor) with its own node_modules. The shared folder is
// read-only, so everything that is installed or seeded lives in the copy.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (the folder holding package.json and bench/). */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Where installs, databases and server logs of the benches go. */
export const WORK = path.join(REPO, 'bench', '.work');
/** Where tables and JSON of runs go (not committed). */
export const RESULTS = path.join(REPO, 'bench', 'results');

const SKIP = new Set(['node_modules', 'data', 'results', '.git']);

/** The shared harness folder: $BENCH_HARNESS, else ../shared/bench beside the repository. */
export function harnessSource() {
  const dir = process.env.BENCH_HARNESS ?? path.resolve(REPO, '..', 'shared', 'bench');
  if (!fs.existsSync(path.join(dir, 'run.mjs'))) {
    throw new Error(`the benchmark harness is not at ${dir} (expected run.mjs there); set BENCH_HARNESS to its folder`);
  }
  return dir;
}

function copyTree(from, to, changed) {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) copyTree(src, dst, changed);
    else if (entry.isFile() && /\.(m?js|cjs|json|cds|md|sh)$/.test(entry.name)) {
      const data = fs.readFileSync(src);
      if (!fs.existsSync(dst) || !fs.readFileSync(dst).equals(data)) {
        fs.writeFileSync(dst, data);
        fs.chmodSync(dst, 0o644);
        changed.push(path.relative(WORK, dst));
      }
    }
  }
}

function sh(cmd, args, cwd, label) {
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) throw new Error(`${label} failed (exit ${r.status ?? r.signal}):\n${(r.stderr || r.stdout || '').slice(-2000)}`);
  return (Date.now() - t0) / 1000;
}

const versionOf = (dir) => {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
};

/**
 * `npm ci` in `dir` unless its node_modules matches its lockfile already. better-sqlite3 is the only
 * package with an install script in both lockfiles: when it is the version our own node_modules
 * holds, our compiled addon (same Node, same version) is reused instead of a 2-minute C++ build.
 */
function install(dir, log) {
  const lock = fs.readFileSync(path.join(dir, 'package-lock.json'));
  const stamp = path.join(dir, 'node_modules', '.bench-installed');
  const want = createHash('sha256').update(lock).update(process.version).digest('hex');
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want) return;
  log(`installing ${path.relative(REPO, dir)} (npm ci) ...`);
  let s = sh('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], dir, `npm ci in ${dir}`);
  const ours = path.join(REPO, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  const theirs = path.join(dir, 'node_modules', 'better-sqlite3');
  if (fs.existsSync(theirs)) {
    if (versionOf(dir) === versionOf(REPO) && fs.existsSync(ours)) {
      fs.mkdirSync(path.join(theirs, 'build', 'Release'), { recursive: true });
      fs.copyFileSync(ours, path.join(theirs, 'build', 'Release', 'better_sqlite3.node'));
    }
    const probe = spawnSync(process.execPath, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], { cwd: dir, encoding: 'utf8' });
    if (probe.status !== 0) {
      log(`  building better-sqlite3 from source in ${path.relative(REPO, dir)} (~2 min) ...`);
      s += sh('npm', ['rebuild', 'better-sqlite3', '--loglevel=error'], dir, `npm rebuild better-sqlite3 in ${dir}`);
    }
  }
  fs.writeFileSync(stamp, want);
  log(`  done in ${s.toFixed(0)} s`);
}

/** Installs a peer folder of the harness copy (e.g. peers/cap-postgres) as `install` does. */
export function installPeer(dir, log = (m) => console.error(m)) {
  install(dir, log);
}

/** The project's own scenarios (wave 2: `$apply`, later `$batch`), run besides the harness's defaults. */
export const OWN_SCENARIOS = path.join(REPO, 'bench', 'scenarios.json');

/**
 * Writes bench/.work/scenarios.json: the harness's default scenarios and the project's own, whose
 * reads go before the first write (the defaults end with their writes) and whose placeholders join
 * the defaults'. Returns its path, for the harness's --scenarios.
 */
export function mergedScenarioFile(harnessDir) {
  const shared = JSON.parse(fs.readFileSync(path.join(harnessDir, 'scenarios.json'), 'utf8'));
  const own = JSON.parse(fs.readFileSync(OWN_SCENARIOS, 'utf8'));
  const names = new Set(shared.scenarios.map((s) => s.name));
  const clash = own.scenarios.find((s) => names.has(s.name));
  if (clash !== undefined) throw new Error(`${OWN_SCENARIOS}: the scenario ${clash.name} is already one of the harness's`);
  const firstWrite = shared.scenarios.findIndex((s) => (s.method ?? 'GET') !== 'GET');
  const at = firstWrite < 0 ? shared.scenarios.length : firstWrite;
  const reads = own.scenarios.filter((s) => (s.method ?? 'GET') === 'GET');
  const writes = own.scenarios.filter((s) => (s.method ?? 'GET') !== 'GET');
  const merged = {
    ...shared,
    placeholders: { ...shared.placeholders, ...own.placeholders },
    scenarios: [...shared.scenarios.slice(0, at), ...reads, ...shared.scenarios.slice(at), ...writes],
  };
  const file = path.join(WORK, 'scenarios.json');
  fs.mkdirSync(WORK, { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(merged, null, 2)}\n`);
  return file;
}

/** Copies the harness into bench/.work/harness and installs it and the CAP peer; gives their folders. */
export function prepareWorkFolder(log = (m) => console.error(m)) {
  const src = harnessSource();
  const harness = path.join(WORK, 'harness');
  const changed = [];
  copyTree(src, harness, changed);
  if (changed.length > 0) log(`copied ${changed.length} harness file(s) from ${src}`);
  install(harness, log);
  const cap = path.join(harness, 'peers', 'cap');
  install(cap, log);
  return { harness, cap, raw: path.join(harness, 'peers', 'raw', 'server.mjs'), runMjs: path.join(harness, 'run.mjs'), scenarios: mergedScenarioFile(harness) };
}
