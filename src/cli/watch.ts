/**
 * `serve --watch` (like `cds watch`): runs `serve` as a child process and watches the model folder and
 * the compiled code (dist/src, where the rule modules run from). On a change it validates first
 * (`ecn-odata check` in a fresh process: model files, rule modules, the database migration, rolled
 * back) and only then restarts the child; when the check fails it prints the problems and keeps the
 * last good service running. In a source checkout it also runs `tsc --watch --noEmitOnError`, so a
 * rule module with a type error is reported and never reaches dist/ (nor the running service).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../config.js';
import { dataFolderOf } from '../data/data-folder.js';

/** What the supervisor needs from the serve flags. */
export interface WatchOptions {
  /** The serve arguments without --watch and --no-compile. */
  readonly serveArgs: readonly string[];
  readonly metadataDir: string;
  readonly dbFile: string;
  /** Run tsc --watch alongside (source checkouts only). */
  readonly compile: boolean;
}

const DEBOUNCE_MS = 300;
const say = (message: string): void => console.error(`ecn-odata watch: ${message}`);

/** The node flags of this process (the #! line's memory settings) for the child processes. */
function nodeArgs(): string[] {
  return [...process.execArgv];
}

/**
 * tsc --watch of a source checkout, printing only its errors; undefined when there is no TypeScript
 * here. `onReady` runs when its first build is done (that build rewrites every file of dist/).
 */
function startCompiler(root: string, onReady: () => void): ChildProcess | undefined {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!fs.existsSync(tsc) || !fs.existsSync(path.join(root, 'tsconfig.json'))) return undefined;
  const child = spawn(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json'), '--watch', '--preserveWatchOutput', '--noEmitOnError'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  let buffered = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (/error TS\d+/.test(line)) say(`compile error (the service keeps the last good build): ${line.trim()}`);
      else if (/Found [1-9]\d* errors?/.test(line)) say(line.replace(/^.*?(Found)/, '$1').trim());
      if (/Watching for file changes/.test(line)) onReady();
    }
  });
  return child;
}

/** Runs the supervisor until SIGINT or SIGTERM. */
export async function watch(options: WatchOptions): Promise<void> {
  const root = packageRoot();
  const bin = path.join(root, 'dist', 'src', 'cli', 'main.js');
  const watched = [options.metadataDir, path.join(root, 'dist', 'src')].filter((dir) => fs.existsSync(dir));
  let server: ChildProcess | undefined;
  let stopping = false;

  const startServer = (): ChildProcess => {
    const child = spawn(process.execPath, [...nodeArgs(), bin, 'serve', ...options.serveArgs], { stdio: 'inherit' });
    child.on('exit', (code, signal) => {
      if (server === child && !stopping) {
        server = undefined;
        say(`the service stopped (${signal ?? `exit code ${String(code)}`}); fix the problem, and the next change starts it again.`);
      }
    });
    return child;
  };
  const stopServer = async (child: ChildProcess | undefined): Promise<void> => {
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
  };
  const check = (): { ok: boolean; output: string } => {
    const r = spawnSync(process.execPath, [...nodeArgs(), bin, 'check', '--metadata', options.metadataDir, '--db', options.dbFile], { encoding: 'utf8' });
    return { ok: r.status === 0, output: `${r.stderr}${r.status === 0 ? '' : r.stdout}`.trim() };
  };

  let timer: NodeJS.Timeout | undefined;
  let changed = new Set<string>();
  let busy = Promise.resolve();
  const reload = async (): Promise<void> => {
    const what = [...changed].slice(0, 3).join(', ') + (changed.size > 3 ? ', ...' : '');
    changed = new Set();
    const result = check();
    if (!result.ok) {
      say(`${what} changed; not reloaded, ${server === undefined ? 'no service is running' : 'still serving the last good model and rules'}:\n${result.output}`);
      return;
    }
    say(`${what} changed; checked, restarting`);
    const old = server;
    server = undefined;
    await stopServer(old);
    if (stopping) return;
    server = startServer();
  };
  let compiling = false;
  const onChange = (dir: string) => (_event: string, file: string | Buffer | null): void => {
    if (file === null || (compiling && dir !== options.metadataDir)) return;
    const name = path.join(dir, file.toString());
    // Model files and compiled modules; editors' temporary files and source maps are not changes.
    if (!/\.(json|js)$/.test(name) || /(^|[/\\])\./.test(file.toString())) return;
    // Data files are read by seed, not by the running service.
    if (name.startsWith(`${dataFolderOf(options.metadataDir)}${path.sep}`)) return;
    changed.add(path.relative(process.cwd(), name) || name);
    clearTimeout(timer);
    timer = setTimeout(() => {
      busy = busy.then(reload);
    }, DEBOUNCE_MS);
  };

  const watchers = watched.map((dir) => fs.watch(dir, { recursive: true }, onChange(dir)));
  const compiler = options.compile ? startCompiler(root, () => (compiling = false)) : undefined;
  compiling = compiler !== undefined;
  say(`watching ${watched.map((dir) => path.relative(process.cwd(), dir) || dir).join(' and ')}${compiler === undefined ? '' : ' (and compiling src/ with tsc --watch)'}`);
  server = startServer();

  await new Promise<void>((resolve) => {
    const stop = (): void => {
      stopping = true;
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
      compiler?.kill('SIGTERM');
      void stopServer(server).then(resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
