// `npm start` and `npm run watch`: builds (tsc, which also type-checks) only when a source is newer than
// the last build, so a second start answers in a second or two instead of after a whole build.
// The last build is dist/.tsbuildinfo (tsconfig.json's tsBuildInfoFile, written by every build).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist', '.tsbuildinfo');

/** The newest modification time of the files under `dir` (recursively), or of the file itself. */
function newest(file) {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let t = stat.mtimeMs;
  for (const entry of fs.readdirSync(file)) t = Math.max(t, newest(path.join(file, entry)));
  return t;
}

const built = fs.statSync(stamp, { throwIfNoEntry: false })?.mtimeMs ?? 0;
const inputs = ['src', 'test', 'tsconfig.json', 'package-lock.json'].map((f) => newest(path.join(root, f)));
if (built > 0 && inputs.every((t) => t <= built)) process.exit(0);
const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
// An incremental build that found nothing to do leaves the stamp as it was: mark it as current.
if (tsc.status === 0 && fs.existsSync(stamp)) fs.utimesSync(stamp, new Date(), new Date());
if (tsc.status === 0) spawnSync(process.execPath, [path.join(root, 'scripts', 'bin-executable.mjs')], { stdio: 'inherit' });
process.exit(tsc.status ?? 1);
