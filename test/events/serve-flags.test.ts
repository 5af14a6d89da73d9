/** `ecn-odata serve` webhook flags: documented in --help, malformed values are one-line start-up failures (exit 1). */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { BIN } from '../helpers/serve-process.js';

const run = (...args: string[]): ReturnType<typeof spawnSync> => spawnSync(process.execPath, [BIN, 'serve', '--db', ':memory:', ...args], { encoding: 'utf8', cwd: os.tmpdir(), timeout: 10_000 });

test('serve --help documents the webhook flags', () => {
  const r = run('--help');
  expect(r.status).toBe(0);
  for (const flag of ['--public-url URL', '--webhooks-allow-private', '--webhooks-timeout MS', '--webhooks-backoff LIST']) expect(r.stdout).toContain(flag);
});

test.each([
  [['--webhooks-timeout', '10s'], "--webhooks-timeout takes whole milliseconds, got '10s'"],
  [['--webhooks-backoff', '1000,soon'], "--webhooks-backoff takes whole milliseconds, got 'soon'"],
  [['--public-url', 'not a url'], "--public-url 'not a url' is not a URL"],
  [['--public-url', 'ftp://example.com'], '--public-url must be an http or https URL'],
])('%j is a one-line start-up failure', (args, message) => {
  const r = run(...args);
  expect(r.status).toBe(1);
  expect(String(r.stderr).trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toContain(message);
});
