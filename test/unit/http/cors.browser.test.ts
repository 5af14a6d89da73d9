/**
 * CORS in a real browser (headless Chromium): a page of an allowed origin reads and changes entities
 * with a Bearer token (preflight, exposed ETag); a page of another origin is stopped by the browser.
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'puppeteer-core';
import { createExpressApp } from '../../../src/http/express-app.js';
import { describeWithBrowser, launchChromium } from '../../helpers/browser.js';
import { startTestService, type TestService } from '../../helpers/test-service.js';

/** What the page's script saw. */
interface Outcome {
  readonly ok: boolean;
  readonly status?: number;
  readonly etag?: string | null;
  readonly changed?: string;
  readonly error?: string;
}

describeWithBrowser('CORS from a browser page of another origin', () => {
  let t: TestService;
  let service: http.Server;
  let pages: http.Server;
  let api: string;
  let port: number;
  let browser: Browser;

  beforeAll(async () => {
    pages = http.createServer((_req, res) => res.end('<!doctype html><title>app</title>'));
    pages.listen(0, '127.0.0.1');
    await once(pages, 'listening');
    port = (pages.address() as AddressInfo).port;
    t = await startTestService({ corsOrigins: [`http://127.0.0.1:${port}`] });
    service = createExpressApp(t.service).listen(0, '127.0.0.1');
    await once(service, 'listening');
    api = `http://127.0.0.1:${(service.address() as AddressInfo).port}/api/v2.0`;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await pages?.close();
    await t?.close();
  });

  /** Reads an ECN, then PATCHes it with the ETag from the response header, from a page at `origin`. */
  async function readAndChange(origin: string): Promise<Outcome> {
    const page: Page = await browser.newPage();
    try {
      await page.goto(origin);
      return await page.evaluate(
        async (root: string, token: string): Promise<Outcome> => {
          try {
            const auth = { Authorization: `Bearer ${token}` };
            const list = (await (await fetch(`${root}/engChangeNotices?$top=1&$select=id`, { headers: auth })).json()) as { value: { id: string }[] };
            const id = list.value[0]?.id ?? '';
            const one = await fetch(`${root}/engChangeNotices(${id})`, { headers: auth });
            const etag = one.headers.get('ETag');
            const patch = await fetch(`${root}/engChangeNotices(${id})`, {
              method: 'PATCH',
              headers: { ...auth, 'Content-Type': 'application/json', 'If-Match': etag ?? '' },
              body: JSON.stringify({ drawingNumber: 'CORS-1' }),
            });
            return { ok: true, status: patch.status, etag, changed: ((await patch.json()) as { drawingNumber: string }).drawingNumber };
          } catch (e) {
            return { ok: false, error: String(e) };
          }
        },
        api,
        await t.token('ADMIN'),
      );
    } finally {
      await page.close();
    }
  }

  test('an allowed origin reads the ETag and changes the entity with it', async () => {
    const r = await readAndChange(`http://127.0.0.1:${port}/`);
    expect(r).toEqual({ ok: true, status: 200, etag: expect.stringMatching(/^W\/"/), changed: 'CORS-1' });
  });

  test('another origin (the same page by another host name) is stopped by the browser', async () => {
    const r = await readAndChange(`http://localhost:${port}/`);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/Failed to fetch/);
  });
});
