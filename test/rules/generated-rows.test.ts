/**
 * The row types the rule modules use (src/rules/generated/rows.ts) are what `ecn-odata types` generates
 * from metadata/ now: after a model change, npm test fails until the file is regenerated.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, REPO_ROOT } from '../helpers/serve-process.js';

const COMMITTED = path.join(REPO_ROOT, 'src', 'rules', 'generated', 'rows.ts');

test('src/rules/generated/rows.ts is what `ecn-odata types` generates from metadata/', () => {
  const r = spawnSync(process.execPath, [BIN, 'types'], { encoding: 'utf8', cwd: REPO_ROOT });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const committed = fs.readFileSync(COMMITTED, 'utf8');
  if (committed !== r.stdout) {
    throw new Error('src/rules/generated/rows.ts is out of date with metadata/: run `npm run build && node dist/src/cli/main.js types --out src/rules/generated/rows.ts` and commit it.');
  }
});
