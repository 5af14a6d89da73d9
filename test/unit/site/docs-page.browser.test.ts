/**
 * The API docs page in a real browser (headless Chromium through puppeteer-core): it lists every
 * entity set, a person pastes a token under Authorize, runs GET engChangeNotices and sees 200 with
 * ECN data on the page. The screenshot goes to test-output/screenshots/ (git-ignored).
 */
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'puppeteer-core';
import { createExpressApp } from '../../../src/http/express-app.js';
import { describeWithBrowser, launchChromium } from '../../helpers/browser.js';
import { REPO_ROOT } from '../../helpers/serve-process.js';
import { startTestService, type TestService } from '../../helpers/test-service.js';

const SCREENSHOTS = path.join(REPO_ROOT, 'test-output', 'screenshots');

describeWithBrowser('the API docs page', () => {
  let t: TestService;
  let server: http.Server;
  let base: string;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    t = await startTestService();
    server = createExpressApp(t.service).listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('pageerror', (e) => problems.push(`page error: ${String(e)}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    await page.setViewport({ width: 1280, height: 1000 });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await t?.close();
  });

  test('it shows every entity set', async () => {
    await page.goto(`${base}/docs`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('.opblock-tag');
    const tags = await page.$$eval('.opblock-tag', (els) => els.map((e) => e.getAttribute('data-tag')));
    expect(tags).toEqual(['service', ...t.service.model.entityTypes.map((type) => type.entitySet)]);
    expect(await page.$eval('.info .title', (e) => e.textContent)).toContain('ECN Service');
  });

  test('a pasted token runs GET engChangeNotices: 200 with ECN data on the page', async () => {
    const token = await t.token('KLEE');
    await page.click('.btn.authorize');
    await page.waitForSelector('#auth-bearer-value');
    await page.type('#auth-bearer-value', token);
    await page.click('.auth-container:first-child button.authorize');
    await page.click('.auth-container:first-child button.btn-done');
    await page.click('.opblock-tag[data-tag="engChangeNotices"]');
    const op = '#operations-engChangeNotices-engChangeNotices-list';
    await page.waitForSelector(`${op} .opblock-summary-control`);
    await page.click(`${op} .opblock-summary-control`);
    await page.waitForSelector(`${op} tr[data-param-name="$top"] input`);
    await page.type(`${op} tr[data-param-name="$top"] input`, '3');
    await page.click(`${op} .execute`);
    await page.waitForSelector(`${op} .live-responses-table tbody .response-col_status`, { timeout: 15_000 });
    const status = await page.$eval(`${op} .live-responses-table tbody .response-col_status`, (e) => e.textContent?.trim());
    const body = await page.$eval(`${op} .live-responses-table tbody .response-col_description pre`, (e) => e.textContent ?? '');
    const requestUrl = await page.$eval(`${op} .request-url pre`, (e) => e.textContent ?? '');
    expect(status).toBe('200');
    expect(requestUrl).toBe(`${base}/api/v2.0/engChangeNotices?%24top=3`);
    const json = JSON.parse(body);
    expect(json['@odata.context']).toBe(`${base}/api/v2.0/$metadata#engChangeNotices`);
    expect(json.value).toHaveLength(3);
    expect(json.value[0].number).toMatch(/^ECN\d{6}$/);
    await page.$eval(`${op} .live-responses-table`, (e) => e.scrollIntoView({ block: 'center' }));
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'docs-page.png') });
    expect(problems).toEqual([]);
  });
});
