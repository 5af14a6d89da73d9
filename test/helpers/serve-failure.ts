/**
 * `serve` as a child process that is expected not to start (test/unit/cli/serve-startup*.test.ts): what
 * it printed and its exit code, and the check that it failed with exactly one clear line.
 */
import { spawn } from 'node:child_process';
import { BIN } from './serve-process.js';

/** What a `serve` that ran to its end printed, and its exit code. */
export interface ServeOutcome {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs serve in `cwd` asynchronously (the test's own server must keep answering while it runs); killed after 15 s. */
export async function serveIn(cwd: string, ...args: string[]): Promise<ServeOutcome> {
  const child = spawn(process.execPath, [BIN, 'serve', '--log-level', 'silent', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const status = await new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  clearTimeout(timer);
  return { status, stdout, stderr };
}

/** Exit 1 with one line on stderr matching `text`, no stack trace, no URL and no token. */
export function expectOneLineFailure(r: ServeOutcome, text: string | RegExp): void {
  expect(r.status).toBe(1);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(text);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stdout).not.toContain('serving');
  expect(r.stdout).not.toContain('token');
}
