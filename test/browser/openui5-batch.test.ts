/**
 * A real client that batches by default (issue 14 acceptance): OpenUI5's OData V4 model
 * (sap.ui.model.odata.v4.ODataModel, npm @openui5/sap.ui.core 1.152) in headless Chromium, with no
 * `$direct` anywhere: a list read through the default `$auto` group, a PATCH of a row and a create
 * held in a deferred group and sent with `submitBatch`. Every service request it makes is a
 * `POST $batch` (multipart/mixed, the writes in a change set), except `$metadata`; the test checks
 * what the model shows against plain reads of the service.
 */
import type { Browser } from 'puppeteer-core';
import { describeWithBrowser, launchChromium } from '../helpers/browser.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { openUI5Installed, openUI5Page, startOpenUI5Harness, ui5, type OpenUI5Harness } from './openui5-harness.js';

interface Args {
  readonly serviceUrl: string;
  readonly token: string;
}

/** The shapes of OpenUI5 objects the page code uses (typed here, since the modules come untyped). */
interface Ui5Context {
  getObject(): Record<string, unknown>;
  getProperty(path: string): unknown;
  setProperty(path: string, value: unknown): Promise<void>;
  created(): Promise<void>;
}
interface Ui5Binding {
  requestContexts(start: number, length: number): Promise<Ui5Context[]>;
  getCount(): number | undefined;
  create(data: Record<string, unknown>): Ui5Context;
}
interface Ui5Model {
  bindList(path: string, context: undefined, sorters: unknown[], filters: unknown[], parameters: Record<string, unknown>): Ui5Binding;
  submitBatch(groupId: string): Promise<void>;
  hasPendingChanges(): boolean;
}

const run = describeWithBrowser;
(openUI5Installed() ? run : describe.skip)('OpenUI5 V4 ODataModel with its default $batch groups against the service', () => {
  let t: TestService;
  let harness: OpenUI5Harness;
  let browser: Browser;
  beforeAll(async () => {
    t = await startTestService();
    harness = await startOpenUI5Harness(t.service);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await harness?.close();
    await t?.close();
  });

  test('a list read, a PATCH through submitBatch and a create, all in $batch requests', async () => {
    const { page, errors } = await openUI5Page(browser, harness);
    const plain = await t.call('GET', '/engChangeNotices?$orderby=number&$top=5&$select=id,number,status,drawingNumber&$count=true');
    const before = harness.requests.length;
    const result = await ui5(
      page,
      ['sap/ui/model/odata/v4/ODataModel', 'sap/ui/model/Sorter'],
      async ([ODataModel, Sorter], arg: Args) => {
        const Model = ODataModel as new (settings: object) => Ui5Model;
        const SorterClass = Sorter as new (path: string, descending: boolean) => unknown;
        // No groupId: reads go through $auto, which OpenUI5 sends as $batch; writes wait in 'changes'.
        const model = new Model({ serviceUrl: arg.serviceUrl, updateGroupId: 'changes', operationMode: 'Server', httpHeaders: { Authorization: `Bearer ${arg.token}` } });
        const binding = model.bindList('/engChangeNotices', undefined, [new SorterClass('number', false)], [], { $count: true, $select: 'id,number,status,drawingNumber' });
        const contexts = await binding.requestContexts(0, 5);
        const listed = contexts.map((c) => c.getObject());
        const count = binding.getCount();

        const first = contexts[0] as Ui5Context;
        const patched = first.setProperty('drawingNumber', 'UI5-BATCH-1');
        const created = binding.create({ sourceType: 'Item', sourceNumber: 'UI5-1', changeReasonCode: 'DESIGN', drawingNumber: 'UI5-NEW' });
        const pendingBefore = model.hasPendingChanges();
        await Promise.all([model.submitBatch('changes'), patched, created.created()]);
        return {
          listed,
          count,
          pendingBefore,
          pendingAfter: model.hasPendingChanges(),
          patchedId: first.getProperty('id'),
          patchedDrawing: first.getProperty('drawingNumber'),
          createdId: created.getProperty('id'),
          createdNumber: created.getProperty('number'),
          createdStatus: created.getProperty('status'),
        };
      },
      { serviceUrl: harness.serviceUrl, token: await t.token('ADMIN') },
    );
    expect(errors).toEqual([]);

    // The list: the first five ECNs by number, and the count, as the service read them before.
    expect(result.listed.map((r) => r['number'])).toEqual(plain.json.value.map((r: { number: string }) => r.number));
    expect(result.count).toBe(plain.json['@odata.count']);

    // The PATCH and the create reached the database.
    expect([result.pendingBefore, result.pendingAfter]).toEqual([true, false]);
    expect((await t.call('GET', `/engChangeNotices(${String(result.patchedId)})`)).json.drawingNumber).toBe('UI5-BATCH-1');
    expect(result.patchedDrawing).toBe('UI5-BATCH-1');
    const created = await t.call('GET', `/engChangeNotices(${String(result.createdId)})`);
    expect([created.status, created.json.drawingNumber, created.json.number, created.json.status]).toEqual([200, 'UI5-NEW', result.createdNumber, 'New']);
    expect(result.createdStatus).toBe('New');

    // Every service request OpenUI5 made was a $batch, but for $metadata.
    const sent = harness.requests.slice(before).filter((r) => !r.url.includes('$metadata'));
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(sent.every((r) => r.method === 'POST' && /\/\$batch(\?|$)/.test(r.url))).toBe(true);
  });
});
