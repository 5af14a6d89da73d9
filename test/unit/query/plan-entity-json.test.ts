/**
 * Entity JSON written by SQLite (plan-entity-json.ts) must be byte-identical to the JavaScript writer
 * (serialize/entity-json.ts) for every entity type, selection, nested expansion and value spelling:
 * numbers that SQLite and JSON.stringify write differently, booleans, nulls, escapes, Unicode, row
 * versions of every length, media links. Both paths run on the same rows and the texts are compared.
 */
import { startTestService, type TestService } from '../../helpers/test-service.js';
import { parseQueryOptions } from '../../../src/uri/parse-options.js';
import { planQuery } from '../../../src/query/plan-query.js';
import { planSelect } from '../../../src/query/plan-select.js';
import { compile } from '../../../src/sql/compile.js';
import { sqliteDialect } from '../../../src/db/sqlite/sqlite-dialect.js';
import { entityToJson, rowEtag } from '../../../src/serialize/entity-json.js';
import { expandShapes } from '../../../src/core/operations/read.js';
import { collectionJoinedResponse, collectionResponse, entityResponse, entityTextResponse } from '../../../src/core/responses.js';
import { sqlJsonSupported } from '../../../src/query/plan-entity-json.js';
import type { JsonFormat } from '../../../src/core/format.js';

let t: TestService;
const NOW = '2026-06-01T12:00:00.000Z';
const MINIMAL: JsonFormat = { metadata: 'minimal', ieee754Compatible: false };
const NONE: JsonFormat = { metadata: 'none', ieee754Compatible: false };
const IEEE754: JsonFormat = { metadata: 'minimal', ieee754Compatible: true };

beforeAll(async () => {
  t = await startTestService();
  const raw = t.service.db.raw;
  // Values SQLite and JSON.stringify spell differently, or that need escaping.
  const numbers = [5, 0.00001, 1 / 3, 123456789012345.6, 1e20, -0.5, 40, 0.1 + 0.2, 1e-7, 2.5e15, 12.34, 0, -0, 7.25, Infinity, -Infinity, null];
  // Quantities, the double next to one, more decimals, the bounds of the 15-digit spelling.
  numbers.push(2.09, 2.09 + 2 * Number.EPSILON, -123.456789, 0.0001, 0.000123456, 0.1 * 3, 1234567.1234567, 98765.4321, 1e9 + 0.5);
  // 15 significant digits that SQLite writes with 17 (181004266.44129601), JSON.stringify with 15.
  numbers.push(181004266.441296, 999999999.999999, -105119197.556819, 0.088150833733786, 5440742893.89642);
  // The first company's lines first: the checks below read that company.
  const lines = raw.prepare('SELECT "id" FROM "engChangeNoticeBOMLines" ORDER BY "_companyId" = ? DESC, "id"').pluck().all(t.companyIds[0]) as string[];
  const setNumbers = raw.prepare('UPDATE "engChangeNoticeBOMLines" SET "quantityPer" = ?, "newQuantityPer" = ?, "description" = ? WHERE "id" = ?');
  const texts = ['quote " and \\ backslash', 'tab\tnew\nline\r\u0001\u001f\u007f', 'Ünïcödé Ø 😀 \u2028\u2029', "O'Brien", '', null];
  lines.forEach((id, i) => setNumbers.run(numbers[i % numbers.length] ?? null, numbers[(i + 3) % numbers.length] ?? null, texts[i % texts.length] ?? null, id));
  // Row versions of other lengths than the clock's 16 digits take the fallback function.
  const ecns = raw.prepare('SELECT "id" FROM "engChangeNotices" ORDER BY "id"').pluck().all() as string[];
  const versions = [0, 7, 42, 999999999999999, 1000000000000000, 9999999999999999, 10000000000000000, 123456789012345678];
  const setVersion = raw.prepare('UPDATE "engChangeNotices" SET "_version" = ?, "drawingNumber" = ? WHERE "id" = ?');
  ecns.forEach((id, i) => {
    const v = versions[i % versions.length] ?? 0;
    setVersion.run(BigInt(v), texts[i % texts.length] ?? null, id);
  });
});
afterAll(() => t.close());

/** Reads `query` on a type of the first company through both writers; returns [javascript, sqlite] texts per row. */
function both(typeName: string, query: string, format: JsonFormat): { js: string[]; sql: string[]; rows: Record<string, unknown>[] } {
  const model = t.service.model;
  const type = model.entityTypeByName.get(typeName);
  if (type === undefined) throw new Error(typeName);
  const companyId = type.scope === 'company' ? t.companyIds[0] : undefined;
  const options = parseQueryOptions(query);
  const links = { serviceRootUrl: 'http://localhost/api/v2.0', prefix: companyId === undefined ? '' : `companies(${companyId})/` };
  const base = { model, dialect: sqliteDialect, type, options, aliases: options.aliases, now: NOW, depth: 0 };
  const plain = planQuery(base);
  const rows = t.service.db.all(compile(planSelect({ type, companyId, conditions: [], ...plain.read }), sqliteDialect));
  const js = rows.map((r) => JSON.stringify(entityToJson(type, r, { format, links, select: plain.read.select, expand: expandShapes(plain.expand) })));
  const metadata = format.metadata === 'none' ? 'none' : 'minimal';
  const jsonQuery = planQuery({ ...base, json: { dialect: sqliteDialect, metadata, links, ieee754Compatible: format.ieee754Compatible } });
  expect(sqlJsonSupported(type, jsonQuery.read.select, jsonQuery.expand, metadata)).toBe(true);
  // Rows are [json, key, version]; the JSON carries @odata.etag at every level.
  const sql = t.service.db
    .rows(compile(planSelect({ type, companyId, conditions: [], ...jsonQuery.read }), sqliteDialect))
    .map((r) => r[0] as string);
  return { js, sql, rows };
}

const CASES: [string, string][] = [
  ['engChangeNotice', ''],
  ['engChangeNotice', '$select=id,number,status,bomExists,changeReasonDescription'],
  ['engChangeNotice', '$expand=engChangeNoticeComments,engChangeNoticeBOMLines'],
  ['engChangeNotice', '$expand=engChangeNoticeBOMLines($select=quantityPer,newQuantityPer,description;$count=true;$orderby=quantityPer desc;$top=2),changeReason'],
  ['engChangeNotice', '$expand=engChangeNoticeComments($filter=lineNo gt 10000;$expand=engChangeNotice($select=number))&$select=number'],
  ['engChangeNoticeBOMLine', ''],
  ['engChangeNoticeBOMLine', '$expand=engChangeNotice($expand=changeReason)'],
  ['engChangeNoticeComment', ''],
  ['engChangeOrder', ''],
  ['engChangeOrder', '$select=number,changeDescription'],
  ['engChangeOrder', '$expand=engChangeOrderTasks($expand=predecessors($count=true),workCenterGroup)'],
  ['engChangeOrderTask', '$filter=status eq \'Active\''],
  ['engChangeOrderTaskPredecessor', ''],
  ['company', ''],
  ['changeReason', ''],
  ['userSetup', '$expand=contact'],
  ['workCenterGroup', ''],
];

test.each(CASES)('%s ?%s: SQLite writes the same JSON as JavaScript (minimal metadata)', (typeName, query) => {
  const { js, sql } = both(typeName, query, MINIMAL);
  expect(js.length).toBeGreaterThan(0);
  expect(sql).toEqual(js);
});

test.each(CASES)('%s ?%s: the same with odata.metadata=none', (typeName, query) => {
  const { js, sql } = both(typeName, query, NONE);
  expect(sql).toEqual(js);
});

test.each(CASES)('%s ?%s: the same with IEEE754Compatible=true (Int64, Decimal and counts as strings)', (typeName, query) => {
  const { js, sql } = both(typeName, query, IEEE754);
  expect(sql).toEqual(js);
});

test('IEEE754Compatible=true spells decimals as strings with JavaScript\'s digits, doubles stay numbers', () => {
  const text = both('engChangeNoticeBOMLine', '$select=quantityPer', IEEE754).sql.join('\n');
  for (const spelled of ['5', '0.00001', '0.3333333333333333', '1e-7', '100000000000000000000', '2.0900000000000003', '181004266.441296']) {
    expect(text).toContain(`"quantityPer":"${spelled}"}`);
  }
  expect(text).toContain('"quantityPer":null}');
  const counted = both('engChangeNotice', '$expand=engChangeNoticeBOMLines($count=true;$top=1)&$top=2', IEEE754).sql.join('\n');
  expect(counted).toMatch(/"engChangeNoticeBOMLines@odata\.count":"\d+"/);
});

test('the edge values were really read (numbers, escapes, versions)', () => {
  const { sql } = both('engChangeNoticeBOMLine', '$select=quantityPer', MINIMAL);
  const text = sql.join('\n');
  for (const spelled of ['5', '0.00001', '0.3333333333333333', '1e-7', '100000000000000000000', '2500000000000000', '0', 'null', '2.09', '2.0900000000000003', '-123.456789', '0.30000000000000004', '181004266.441296', '999999999.999999', '-105119197.556819', '0.088150833733786', '5440742893.89642']) {
    expect(text).toContain(`"quantityPer":${spelled}}`);
  }
  const ecns = both('engChangeNotice', '$select=number', MINIMAL).sql.join('\n');
  expect(ecns).toContain('"@odata.etag":"W/\\"MA==\\""'); // version 0
  expect(ecns).toContain('"@odata.etag":"W/\\"NDI=\\""'); // 42
});

test('collection and entity envelopes built from texts equal the object-built ones', () => {
  const type = t.service.model.entityTypeByName.get('engChangeNotice');
  if (type === undefined) throw new Error('type');
  const links = { serviceRootUrl: 'http://localhost/api/v2.0', prefix: `companies(${t.companyIds[0]})/` };
  const bodyText = (r: { body?: string | Buffer }): string => String(r.body);
  for (const format of [MINIMAL, NONE]) {
    const { js, rows } = both('engChangeNotice', '$top=3', format);
    const context = "http://localhost/api/v2.0/$metadata#companies(x)/engChangeNotices(number,status)'é";
    for (const [count, next] of [[3, 'http://localhost/next?$skiptoken=a"b'], [undefined, undefined]] as const) {
      const fromObjects = collectionResponse(type, rows, context, { format, links }, count, next);
      const fromTexts = collectionJoinedResponse(js.join(','), context, format, count, next);
      expect(bodyText(fromTexts)).toBe(bodyText(fromObjects));
      expect(fromTexts.headers).toEqual(fromObjects.headers);
    }
  }
  const base = { model: t.service.model, dialect: sqliteDialect, type, options: parseQueryOptions(''), aliases: new Map(), now: NOW, depth: 0 };
  const conditions = [{ property: 'number', value: 'ECN000003' }];
  const row = t.service.db.get(compile(planSelect({ type, companyId: t.companyIds[0], conditions, ...planQuery(base).read }), sqliteDialect));
  const json = planQuery({ ...base, json: { dialect: sqliteDialect, metadata: 'minimal', links, ieee754Compatible: false } });
  const text = t.service.db.get(compile(planSelect({ type, companyId: t.companyIds[0], conditions, ...json.read }), sqliteDialect));
  if (row === undefined || text === undefined) throw new Error('row');
  expect(entityTextResponse(200, String(text['_json']), rowEtag(text), 'ctx', MINIMAL)).toEqual(entityResponse(200, type, row, 'ctx', { format: MINIMAL, links }, {}));
});
