/**
 * A real OpenUI5 client against the service, for browser tests (headless Chromium, test/helpers/browser.ts).
 * One loopback HTTP server serves, on one origin (no CORS):
 * - `/resources/...`: OpenUI5 from the installed npm packages (`@openui5/<library>/src`, unbuilt
 *   sources: the machine reaches no CDN), every `@openui5/*` package installed found by itself;
 * - `/index.html`: a page that boots OpenUI5 (async, the base theme, which the sources need no build for);
 * - everything under the service root: the service itself (src/http's request listener).
 * `openUI5Page` opens the page and waits for the core; `ui5` runs a function in the page with
 * `sap.ui.require`d modules. Issue 18 drives the OData V4 model's aggregation with it; others reuse it
 * ($batch: the model's default group sends one).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'puppeteer-core';
import { createRequestListener } from '../../src/http/express-app.js';
import type { Service } from '../../src/service.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OPENUI5 = path.join(REPO, 'node_modules', '@openui5');

const TYPES: Readonly<Record<string, string>> = {
  '.js': 'application/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.properties': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

/** The `src` folders of the installed OpenUI5 libraries (sap.ui.core first). */
function libraryFolders(): string[] {
  if (!fs.existsSync(OPENUI5)) return [];
  const names = fs.readdirSync(OPENUI5).sort((a, b) => (a === 'sap.ui.core' ? -1 : b === 'sap.ui.core' ? 1 : a.localeCompare(b)));
  return names.map((n) => path.join(OPENUI5, n, 'src')).filter((dir) => fs.existsSync(dir));
}

/** true when the OpenUI5 core package is installed (npm ci installs it: a dev dependency). */
export function openUI5Installed(): boolean {
  return fs.existsSync(path.join(OPENUI5, 'sap.ui.core', 'src', 'sap-ui-core.js'));
}

const PAGE = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>OpenUI5 harness</title>
<script id="sap-ui-bootstrap" src="resources/sap-ui-core.js" data-sap-ui-async="true" data-sap-ui-compat-version="edge"
  data-sap-ui-theme="base" data-sap-ui-language="en"></script>
</head><body></body></html>`;

/** A running harness server. */
export interface OpenUI5Harness {
  /** The page that boots OpenUI5. */
  readonly pageUrl: string;
  /** The service root as the page reaches it (same origin), ending in '/': what an ODataModel's serviceUrl is. */
  readonly serviceUrl: string;
  /** Requests the server received, in order: method and URL (service requests only), for assertions. */
  readonly requests: { readonly method: string; readonly url: string }[];
  close(): Promise<void>;
}

/** Starts the harness server for `service` on a free loopback port. */
export async function startOpenUI5Harness(service: Service): Promise<OpenUI5Harness> {
  const folders = libraryFolders();
  const root = service.model.service.serviceRoot;
  const listener = createRequestListener(service);
  const requests: { method: string; url: string }[] = [];
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const pathname = decodeURIComponent(url.split('?')[0] ?? '/');
    if (pathname === '/' || pathname === '/index.html') {
      res.writeHead(200, { 'Content-Type': TYPES['.html'] as string });
      res.end(PAGE);
      return;
    }
    if (pathname.startsWith('/resources/')) {
      const relative = path.normalize(pathname.slice('/resources/'.length));
      const file = relative.startsWith('..') ? undefined : folders.map((dir) => path.join(dir, relative)).find((f) => fs.existsSync(f) && fs.statSync(f).isFile());
      if (file === undefined) {
        res.writeHead(404, { 'Content-Type': 'text/plain' });
        res.end('not found');
        return;
      }
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
      fs.createReadStream(file).pipe(res);
      return;
    }
    if (pathname === root || pathname.startsWith(`${root}/`)) requests.push({ method: req.method ?? 'GET', url });
    listener(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    pageUrl: `${origin}/index.html`,
    serviceUrl: `${origin}${root}/`,
    requests,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

/** Opens the harness page in a new tab and waits until OpenUI5 has booted; page errors are collected. */
export async function openUI5Page(browser: Browser, harness: OpenUI5Harness): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e instanceof Error ? e.message : String(e)));
  await page.goto(harness.pageUrl);
  await page.waitForFunction("typeof sap === 'object' && typeof sap.ui.require === 'function'");
  await ui5(page, ['sap/ui/core/Core'], ([core]) => (core as { ready(): Promise<void> }).ready(), undefined);
  return { page, errors };
}

/**
 * Runs `body` in the page with the named OpenUI5 modules (`sap.ui.require`) and returns its result.
 * `body` is serialised: it may use only its parameters (`modules` in the order of `names`, and `arg`).
 */
export async function ui5<A, R>(page: Page, names: readonly string[], body: (modules: unknown[], arg: A) => Promise<R> | R, arg: A): Promise<R> {
  const result: unknown = await page.evaluate(
    (moduleNames: string[], source: string, argument: unknown) =>
      new Promise<unknown>((resolve, reject) => {
        const w = globalThis as unknown as { sap: { ui: { require: (n: string[], ok: (...m: unknown[]) => void, fail: (e: unknown) => void) => void } } };
        w.sap.ui.require(
          moduleNames,
          (...modules: unknown[]) => {
            try {
              // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the test's own function, serialised into the page
              const fn = new Function(`return (${source})`)() as (m: unknown[], a: unknown) => unknown;
              Promise.resolve(fn(modules, argument)).then(resolve, (e: unknown) => reject(e instanceof Error ? e.message : String(e)));
            } catch (e) {
              reject(e instanceof Error ? e.message : String(e));
            }
          },
          reject,
        );
      }),
    [...names],
    body.toString(),
    arg as unknown,
  );
  return result as R;
}
