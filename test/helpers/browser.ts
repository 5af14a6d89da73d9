/**
 * Headless Chromium for browser tests: Debian's `chromium` (or CHROMIUM_PATH) driven by puppeteer-core.
 * `.ci/run` installs the package; on a machine without a browser the browser suites are skipped with a
 * line saying so (npm test must pass on a fresh clone with nothing but Node's build toolchain).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

/** The browser executable, or undefined when this machine has none. */
export function chromiumPath(): string | undefined {
  const configured = process.env['CHROMIUM_PATH'];
  if (configured !== undefined && configured !== '') return fs.existsSync(configured) ? configured : undefined;
  return CANDIDATES.find((p) => fs.existsSync(p));
}

/**
 * `describe` when a browser is installed, else `describe.skip` with a note on stderr (install it with
 * `apt-get install -y chromium`, as .ci/run does, or set CHROMIUM_PATH).
 */
export function describeWithBrowser(name: string, fn: () => void): void {
  if (chromiumPath() !== undefined) {
    describe(name, fn);
    return;
  }
  process.stderr.write(`skipped (no Chromium: apt-get install -y chromium, or set CHROMIUM_PATH): ${name}\n`);
  describe.skip(name, fn);
}

/**
 * Launches headless Chromium with a fresh profile. The flags keep it off the network (this machine's
 * network is closed; background connections fail noisily) and let it run as root.
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (executablePath === undefined) throw new Error('No Chromium found: apt-get install -y chromium, or set CHROMIUM_PATH.');
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-chromium-'));
  return puppeteer.launch({
    executablePath,
    headless: true,
    userDataDir,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}
