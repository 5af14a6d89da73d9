/**
 * scripts/build-if-stale.mjs (what `npm start` runs first): it builds only when a source is newer than
 * the last build, and marks a build that found nothing to do as current. Run on a copy of the script in
 * a folder whose "tsc" only records that it ran.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../scripts/build-if-stale.mjs');

function project(): { dir: string; run: () => boolean; age: (file: string, secondsAgo: number) => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-build-'));
  for (const d of ['scripts', 'src', 'test', 'dist', 'node_modules/typescript/bin']) fs.mkdirSync(path.join(dir, d), { recursive: true });
  fs.copyFileSync(SCRIPT, path.join(dir, 'scripts', 'build-if-stale.mjs'));
  for (const f of ['src/a.ts', 'test/a.test.ts', 'tsconfig.json', 'package-lock.json']) fs.writeFileSync(path.join(dir, f), '');
  // The stand-in compiler records each run and, like tsc, writes the build info.
  fs.writeFileSync(path.join(dir, 'node_modules/typescript/bin/tsc'), `require('fs').appendFileSync(${JSON.stringify(path.join(dir, 'runs'))}, 'x'); require('fs').writeFileSync(${JSON.stringify(path.join(dir, 'dist/.tsbuildinfo'))}, '{}');`);
  const runs = (): number => (fs.existsSync(path.join(dir, 'runs')) ? fs.readFileSync(path.join(dir, 'runs'), 'utf8').length : 0);
  const run = (): boolean => {
    const before = runs();
    expect(spawnSync(process.execPath, [path.join(dir, 'scripts', 'build-if-stale.mjs')]).status).toBe(0);
    return runs() > before;
  };
  const age = (file: string, secondsAgo: number): void => {
    const t = new Date(Date.now() - secondsAgo * 1000);
    fs.utimesSync(path.join(dir, file), t, t);
  };
  return { dir, run, age };
}

test('no build yet: it builds; nothing newer since: it does not', () => {
  const p = project();
  for (const f of ['src', 'src/a.ts', 'test', 'test/a.test.ts', 'tsconfig.json', 'package-lock.json']) p.age(f, 60);
  expect(p.run()).toBe(true);
  expect(p.run()).toBe(false);
});

test('a source newer than the last build: it builds again, then not', () => {
  const p = project();
  for (const f of ['src', 'src/a.ts', 'test', 'test/a.test.ts', 'tsconfig.json', 'package-lock.json']) p.age(f, 60);
  expect(p.run()).toBe(true);
  p.age('dist/.tsbuildinfo', 30);
  expect(p.run()).toBe(false);
  fs.writeFileSync(path.join(p.dir, 'src/a.ts'), 'export {};');
  expect(p.run()).toBe(true);
  expect(p.run()).toBe(false);
});
