/**
 * A team follows the README to the letter, on a copy of the project: "Adding an entity" (the entity
 * file, the data file, then `npm run types`, which rewrites src/rules/generated/rows.ts) and "Adding a
 * business rule" (the rule module, and in src/rules/index.ts the import line and the list line), each
 * block read from README.md and written to the file the README's sentence before it names. The copy must
 * then compile (tsc, `npm run build`), start with the new entity type and rule module (`ecn-odata check`),
 * and pass `npm test`, the whole fast tier: no framework test may depend on which rule modules the demo
 * registers or which demo row is in which state, and the README's examples must keep working.
 *
 * It runs jest inside jest (about 4 minutes on 2 cores), so it is in the load tier (jest.config.js
 * LOAD_SUITES), where nothing runs beside it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModel } from '../../src/edm/load-model.js';
import { businessRules } from '../../src/rules/index.js';
import { REPO_ROOT, SHIPPED_METADATA } from '../fixtures/model.js';
import { readmeFileBlock } from '../helpers/readme-example.js';

/** What the copy holds: everything `npm test` reads (sources, model, tests, configs, the README its tests read, the OASIS files, the build script, the tiers' reporter); node_modules is linked. */
const COPIED = ['.ci', 'README.md', 'conformance', 'jest.config.js', 'jest.conformance.config.js', 'jest.load.config.js', 'jest.postgres.config.js', 'metadata', 'package.json', 'package-lock.json', 'schemas', 'scripts', 'src', 'test', 'tsconfig.json'];

/** The whole test, `npm test` included (about 4 minutes on 2 cores when nothing else runs). */
const TIMEOUT_MS = 20 * 60_000;

function copyProject(): string {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-readme-examples-')), 'project');
  fs.mkdirSync(dir);
  for (const entry of COPIED) fs.cpSync(path.join(REPO_ROOT, entry), path.join(dir, entry), { recursive: true });
  fs.symlinkSync(fs.realpathSync(path.join(REPO_ROOT, 'node_modules')), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

/** Writes a README block to the file its text names, in the copy. */
function writeBlock(dir: string, block: { file: string; text: string }): void {
  fs.mkdirSync(path.dirname(path.join(dir, block.file)), { recursive: true });
  fs.writeFileSync(path.join(dir, block.file), block.text);
}

/**
 * Registers a module as the README's block shows: its import lines go beside the other imports (after
 * the last one), its `export const businessRules` statement replaces the file's.
 */
function register(dir: string, block: { file: string; text: string }): void {
  const file = path.join(dir, block.file);
  let source = fs.readFileSync(file, 'utf8');
  for (const line of block.text.split('\n').filter((l) => l.trim() !== '')) {
    if (line.startsWith('import ')) {
      const imports = [...source.matchAll(/^import .*;$/gm)];
      const last = imports[imports.length - 1];
      if (last === undefined) throw new Error(`${block.file} has no import to put '${line}' beside`);
      const at = (last.index ?? 0) + last[0].length;
      source = `${source.slice(0, at)}\n${line}${source.slice(at)}`;
    } else if (line.startsWith('export const businessRules')) {
      const list = /^export const businessRules\b[\s\S]*?\];$/m;
      if (!list.test(source)) throw new Error(`${block.file} has no 'export const businessRules ... ];' for the README's list line to replace`);
      source = source.replace(list, line);
    } else {
      throw new Error(`the README's registration block has a line this test does not know how to apply: ${line}`);
    }
  }
  fs.writeFileSync(file, source);
}

const children = new Set<ChildProcess>();
afterAll(() => {
  // A run cut short by the timeout: its npm, jest and their workers go with it (each a group of its own).
  for (const child of children) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
});

/** Runs a command in the copy, as a shell in the copy would (no variables of the npm or jest around this test); its exit code and output. */
function run(dir: string, command: string, args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(npm_|INIT_CWD$|JEST_WORKER_ID$)/i.test(k)) env[k] = v;
  env['FORCE_COLOR'] = '0';
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    children.add(child);
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      children.delete(child);
      resolve({ code, output });
    });
  });
}

const tail = (text: string, lines = 60): string => text.split('\n').slice(-lines).join('\n');

/** Fails the test with the step's last lines of output unless it exited 0. */
function succeeded(step: string, result: { code: number | null; output: string }): string {
  if (result.code !== 0) throw new Error(`${step} in the copy exited with ${String(result.code)}:\n${tail(result.output)}`);
  return result.output;
}

interface JestResults {
  numTotalTestSuites: number;
  numFailedTestSuites: number;
  numFailedTests: number;
  numRuntimeErrorTestSuites: number;
  testResults: { testFilePath: string; failureMessage?: string | null; testResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
}

/** The failed suites of a jest run, each with its failed tests and the first lines of their messages. */
function failures(dir: string, results: JestResults): string[] {
  return results.testResults
    .filter((suite) => suite.failureMessage || suite.testResults.some((t) => t.status === 'failed'))
    .map((suite) => {
      const failed = suite.testResults.filter((t) => t.status === 'failed');
      const lines = failed.length > 0 ? failed.map((t) => `  ${t.fullName}: ${(t.failureMessages[0] ?? '').split('\n').filter((l) => l.trim() !== '').slice(0, 4).join(' / ')}`) : [`  ${(suite.failureMessage ?? '').split('\n').slice(0, 6).join(' / ')}`];
      return `${path.relative(dir, suite.testFilePath)}\n${lines.join('\n')}`;
    });
}

test(
  "the README's entity and rule examples, applied to a copy of the project: it compiles, starts with both, and npm test passes",
  async () => {
    const dir = copyProject();

    // "Adding an entity": the entity file, the data file, then `npm run types` (Typed rows: after changing metadata/, regenerate and commit).
    const entity = readmeFileBlock('Adding an entity', 'json', '"name": "engChangeNoticeAttachment"');
    expect(entity.file).toBe('metadata/entities/engChangeNoticeAttachment.json');
    writeBlock(dir, entity);
    const data = readmeFileBlock('Adding an entity', 'csv', 'code,description');
    expect(data.file).toMatch(/^metadata\/data\/\w+\.csv$/);
    writeBlock(dir, data);
    succeeded('npm run types', await run(dir, 'npm', ['run', 'types']));
    expect(fs.readFileSync(path.join(dir, 'src/rules/generated/rows.ts'), 'utf8')).toContain('export interface EngChangeNoticeAttachmentRow');

    // "Adding a business rule": the module, then its import and the list line in src/rules/index.ts.
    const rule = readmeFileBlock('Adding a business rule', 'ts', 'defineHooks');
    expect(rule.file).toMatch(/^src\/rules\/\w+\.ts$/);
    writeBlock(dir, rule);
    const registration = readmeFileBlock('Adding a business rule', 'ts', 'export const businessRules');
    expect(registration.file).toBe('src/rules/index.ts');
    register(dir, registration);

    // The copy compiles (tsc, src and test) and starts with one more entity type and one more rule module.
    succeeded('npm run build (tsc)', await run(dir, 'npm', ['run', 'build', '--silent']));
    const check = succeeded('ecn-odata check', await run(dir, process.execPath, ['dist/src/cli/main.js', 'check']));
    expect(check.trim()).toBe(`ok: ${loadModel(SHIPPED_METADATA).entityTypes.length + 1} entity types, ${businessRules.length + 1} rule modules.`);

    // npm test: every suite of the fast tier, on the copy.
    const npmTest = await run(dir, 'npm', ['test']);
    fs.writeFileSync(path.join(dir, 'npm-test.log'), npmTest.output);
    const resultsFile = path.join(dir, '.jest-results.json');
    if (!fs.existsSync(resultsFile)) throw new Error(`npm test in the copy ran no jest (exit ${String(npmTest.code)}):\n${tail(npmTest.output)}`);
    const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as JestResults;
    expect(failures(dir, results)).toEqual([]);
    expect(results.numRuntimeErrorTestSuites).toBe(0);
    expect(results.numTotalTestSuites).toBeGreaterThan(100);
    expect(npmTest.code).toBe(0);
  },
  TIMEOUT_MS,
);
