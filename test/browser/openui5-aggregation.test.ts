/**
 * A real client's grouping (issue 18 acceptance): OpenUI5's OData V4 model (sap.ui.model.odata.v4,
 * npm @openui5/sap.ui.core) in headless Chromium, list bindings with `$$aggregation` as analytical and
 * grouped tables use them: a flat grouping with a sort and a count, and a visual grouping (groupLevels,
 * subtotals) whose first group is expanded. OpenUI5 writes the `$apply` (groupby, aggregate, filter,
 * orderby, top, concat) and checks what comes back; the values are compared with plain reads. The
 * model sends IEEE754Compatible=true, so Int64 sums come back as strings.
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
  expand(): Promise<void>;
}
interface Ui5Binding {
  requestContexts(start: number, length: number): Promise<Ui5Context[]>;
  getCount(): number | undefined;
}
interface Ui5Model {
  bindList(path: string, context: undefined, sorters: unknown[], filters: unknown[], parameters: Record<string, unknown>): Ui5Binding;
}

const run = describeWithBrowser;
(openUI5Installed() ? run : describe.skip)('OpenUI5 V4 ODataModel grouping ($$aggregation) against the service', () => {
  let t: TestService;
  let harness: OpenUI5Harness;
  let browser: Browser;
  let ecns: Record<string, unknown>[];
  beforeAll(async () => {
    t = await startTestService();
    harness = await startOpenUI5Harness(t.service);
    browser = await launchChromium();
    ecns = (await t.call('GET', '/engChangeNotices?$top=20000')).json.value;
  });
  afterAll(async () => {
    await browser?.close();
    await harness?.close();
    await t?.close();
  });

  const sumBy = (key: string, value: string): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const e of ecns) out[String(e[key])] = (out[String(e[key])] ?? 0) + Number(e[value]);
    return out;
  };

  test('a flat grouping with a sort and $count: the groups and sums the database computed', async () => {
    const { page, errors } = await openUI5Page(browser, harness);
    const result = await ui5(
      page,
      ['sap/ui/model/odata/v4/ODataModel', 'sap/ui/model/Sorter'],
      async ([ODataModel, Sorter], arg: Args) => {
        const Model = ODataModel as new (settings: object) => Ui5Model;
        const SorterClass = Sorter as new (path: string, descending: boolean) => unknown;
        const model = new Model({ serviceUrl: arg.serviceUrl, groupId: '$direct', operationMode: 'Server', httpHeaders: { Authorization: `Bearer ${arg.token}` } });
        const binding = model.bindList('/engChangeNotices', undefined, [new SorterClass('total', true)], [], {
          $count: true,
          $$aggregation: { group: { status: {} }, aggregate: { total: { name: 'sourceSequence', with: 'sum' } } },
        });
        const contexts = await binding.requestContexts(0, 100);
        return { rows: contexts.map((c) => c.getObject()), count: binding.getCount() };
      },
      { serviceUrl: harness.serviceUrl, token: await t.token('ADMIN') },
    );
    expect(errors).toEqual([]);
    const expected = Object.entries(sumBy('status', 'sourceSequence')).sort(([, a], [, b]) => b - a);
    expect(result.rows.map((r) => [r['status'], Number(r['total'])])).toEqual(expected);
    expect(typeof result.rows[0]?.['total']).toBe('string'); // IEEE754Compatible: Int64 as a string
    expect(result.count).toBe(expected.length);
    const sent = harness.requests.map((r) => decodeURIComponent(r.url)).filter((u) => u.includes('$apply'));
    expect(sent.some((u) => u.includes('groupby((status),aggregate(sourceSequence with sum as total))'))).toBe(true);
  });

  test('a visual grouping: groups with subtotals, and an expanded group shows its children', async () => {
    const { page, errors } = await openUI5Page(browser, harness);
    const before = harness.requests.length;
    const result = await ui5(
      page,
      ['sap/ui/model/odata/v4/ODataModel'],
      async ([ODataModel], arg: Args) => {
        const Model = ODataModel as new (settings: object) => Ui5Model;
        const model = new Model({ serviceUrl: arg.serviceUrl, groupId: '$direct', operationMode: 'Server', httpHeaders: { Authorization: `Bearer ${arg.token}` } });
        const binding = model.bindList('/engChangeNotices', undefined, [], [], {
          $count: true,
          $$aggregation: {
            group: { changeReasonCode: {}, drawingTypeCode: {} },
            groupLevels: ['changeReasonCode'],
            aggregate: { total: { name: 'sourceSequence', with: 'sum', subtotals: true } },
          },
        });
        const groups = await binding.requestContexts(0, 10);
        const top = groups.map((c) => [c.getProperty('changeReasonCode'), Number(c.getProperty('total')), c.getProperty('@$ui5.node.level'), c.getProperty('@$ui5.node.isExpanded')]);
        await groups[0]?.expand();
        const expanded = (await binding.requestContexts(0, 20)).map((c) => [c.getProperty('@$ui5.node.level'), c.getProperty('changeReasonCode'), c.getProperty('drawingTypeCode') ?? null, Number(c.getProperty('total'))]);
        return { top, expanded };
      },
      { serviceUrl: harness.serviceUrl, token: await t.token('ADMIN') },
    );
    expect(errors).toEqual([]);
    const byReason = sumBy('changeReasonCode', 'sourceSequence');
    const reasons = Object.keys(byReason).sort();
    expect(result.top).toEqual(reasons.map((r) => [r, byReason[r], 1, false]));
    const first = reasons[0] as string;
    const children: Record<string, number> = {};
    for (const e of ecns.filter((x) => String(x['changeReasonCode']) === first)) children[String(e['drawingTypeCode'])] = (children[String(e['drawingTypeCode'])] ?? 0) + Number(e['sourceSequence']);
    const level2 = result.expanded.filter((row) => row[0] === 2);
    expect(level2.map((row) => [row[1], String(row[2]), row[3]]).sort()).toEqual(Object.entries(children).map(([code, total]) => [first, code, total]).sort());
    expect(result.expanded[0]).toEqual([1, first, null, byReason[first]]);
    const sent = harness.requests.slice(before).map((r) => decodeURIComponent(r.url));
    expect(sent.some((u) => u.includes('$apply=concat('))).toBe(true);
    expect(sent.some((u) => u.includes(`filter(changeReasonCode eq '${first}')/groupby((drawingTypeCode)`))).toBe(true);
  });
});
