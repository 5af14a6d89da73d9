// After a build: the package's commands (package.json "bin") are executable files, as npm makes them
// when it installs a package. tsc writes new files without the execute bit, and `npx ecn-odata` in the
// clone runs the file itself (through its #! line), which a link npx made earlier keeps pointing at.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const { bin = {} } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
for (const file of typeof bin === 'string' ? [bin] : Object.values(bin)) {
  const target = path.join(root, file);
  if (fs.existsSync(target)) fs.chmodSync(target, fs.statSync(target).mode | 0o111);
}
