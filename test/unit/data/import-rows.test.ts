/**
 * src/data/import-rows.ts: records go through the API's gates (body validation, the model's checks,
 * the ECN rule); a refused row is reported with its line and skipped, or (atomic, in an outer
 * transaction) rolls back everything; batches that hold a refused row are replayed row by row.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readDataFile } from '../../../src/data/data-file.js';
import { ImportRefusedError, importRows, inOuterTransaction } from '../../../src/data/import-rows.js';
import type { EntityType } from '../../../src/edm/model.js';
import { startTestService, type TestService } from '../../helpers/test-service.js';
import { dataFiles, HEADER, principal } from './import-files.js';
import { formatEtag } from '../../../src/edm/etag.js';

const { dir: workDir, csv } = dataFiles('import-rows-');

let t: TestService;
let ecnType: EntityType;
let cronus = '';
beforeEach(async () => {
  t = await startTestService();
  ecnType = t.service.model.entityTypeBySet.get('engChangeNotices') as EntityType;
  cronus = t.companyIds[0] as string;
});
afterEach(() => t.close());

function ecnCount(): number {
  return Number((t.service.db.raw.prepare('SELECT count(*) AS n FROM "engChangeNotices" WHERE "_companyId" = ?').get(cronus) as { n: number }).n);
}

test('valid rows are written with the defaults a POST gets (number series, currentUser, ETag)', async () => {
  const before = ecnCount();
  const file = csv('ok.csv', [HEADER, 'New,COST,IMP-1,Item,,5', 'Pending Approval,DESIGN,"IMP-2, rev ""B""",Prod. Order,Planned,6']);
  const report = await importRows(t.service.context, ecnType, readDataFile(file, ecnType), { mode: 'skip', principal, companyId: cronus });
  expect(report).toEqual({ imported: 2, refused: [] });
  expect(ecnCount()).toBe(before + 2);
  const got = (await t.call('GET', "/engChangeNotices?$filter=startswith(drawingNumber,'IMP-')&$orderby=drawingNumber")).json.value;
  expect(got.map((e: { drawingNumber: string; status: string; sourceStatus: string; createdBy: string }) => [e.drawingNumber, e.status, e.sourceStatus, e.createdBy])).toEqual([
    ['IMP-1', 'New', '_x0020_', 'IMPORTER'],
    ['IMP-2, rev "B"', 'Pending_x0020_Approval', 'Planned', 'IMPORTER'],
  ]);
  expect(got[0].number).toMatch(/^ECN\d{6}$/);
  expect(got[0]['@odata.etag']).toMatch(/^W\//);
});

test('bulk: rows are written without their stored ETag texts; reads compute the same ETags, and writes store them', async () => {
  const file = csv('bulk.csv', [HEADER, 'New,COST,BULK-1,Item,,5']);
  expect(await importRows(t.service.context, ecnType, readDataFile(file, ecnType), { mode: 'skip', principal, companyId: cronus, bulk: true })).toEqual({ imported: 1, refused: [] });
  const stored = () => t.service.db.raw.prepare(`SELECT "id", "_version", "_etag", "_etagOf" FROM "engChangeNotices" WHERE "drawingNumber" = 'BULK-1'`).get() as { id: string; _version: number; _etag: string | null; _etagOf: number | null };
  const row = stored();
  expect([row._etag, row._etagOf]).toEqual([null, null]);
  const read = await t.call('GET', `/companies(${cronus})/engChangeNotices(${row.id})`);
  expect(read.json['@odata.etag']).toBe(formatEtag(row._version));
  expect(read.headers['ETag']).toBe(formatEtag(row._version));
  expect((await t.call('PATCH', `/companies(${cronus})/engChangeNotices(${row.id})`, { body: { drawingNumber: 'BULK-2' }, headers: { 'if-match': read.json['@odata.etag'] } })).status).toBe(200);
  const after = t.service.db.raw.prepare(`SELECT "_version", "_etag", "_etagOf" FROM "engChangeNotices" WHERE "id" = ?`).get(row.id) as { _version: number; _etag: string; _etagOf: number };
  expect([after._etag, after._etagOf]).toEqual([formatEtag(after._version), after._version]);
});

test('skip: each refused row is reported with its line and the API error; the others are imported', async () => {
  const before = ecnCount();
  const file = csv('mixed.csv', [
    HEADER,
    'New,COST,OK-1,Item,,1',
    'New,NOPE,BAD-REF,Item,,2', // line 3: the changeReason reference
    'New,COST,OK-2,Item,Planned,3', // line 4: the ECN rule (sourceStatus only for Prod. Order)
    'New,COST,OK-3,Item,,many', // line 5: body validation (Int32)
    'New,COST,OK-4,Item,,4',
  ]);
  const report = await importRows(t.service.context, ecnType, readDataFile(file, ecnType), { mode: 'skip', principal, companyId: cronus, batchSize: 3 });
  expect(report.imported).toBe(2);
  expect(report.refused).toEqual([
    { line: 3, code: 'Application_FieldValidationException', message: expect.stringContaining('(NOPE) that cannot be found in the related table (changeReason)'), target: 'changeReasonCode' },
    { line: 4, code: 'Application_DialogException', message: expect.stringContaining('sourceStatus applies only to the source type Prod. Order'), target: 'sourceStatus' },
    { line: 5, code: 'Application_FieldValidationException', message: expect.stringContaining("'sourceSequence'"), target: 'sourceSequence' },
  ]);
  expect(ecnCount()).toBe(before + 2);
  const drawings = (await t.call('GET', "/engChangeNotices?$filter=startswith(drawingNumber,'OK-')&$select=drawingNumber&$orderby=drawingNumber")).json.value.map((e: { drawingNumber: string }) => e.drawingNumber);
  expect(drawings).toEqual(['OK-1', 'OK-4']);
});

test('atomic in an outer transaction: the first refused row rolls back everything, even committed batches', async () => {
  const before = ecnCount();
  const file = csv('atomic.csv', [HEADER, 'New,COST,A-1,Item,,1', 'New,COST,A-2,Item,,2', 'New,COST,A-3,Item,,3', 'New,COST,A-4,Item,Planned,4']);
  const run = inOuterTransaction(t.service.context, () => importRows(t.service.context, ecnType, readDataFile(file, ecnType), { mode: 'atomic', principal, companyId: cronus, batchSize: 2 }));
  await expect(run).rejects.toThrow(ImportRefusedError);
  await expect(run).rejects.toMatchObject({ row: { line: 5, code: 'Application_DialogException', target: 'sourceStatus' } });
  expect(ecnCount()).toBe(before);
  expect(t.service.db.raw.inTransaction).toBe(false);
});

test('a header naming an unknown column stops before any row, with line 1 and a suggestion; read-only columns are ignored as in a POST', async () => {
  const unknown = csv('unknown.csv', ['status,drawingNumbr', 'New,X']);
  await expect(importRows(t.service.context, ecnType, readDataFile(unknown, ecnType), { mode: 'skip', principal, companyId: cronus })).rejects.toThrow(
    `${unknown}:1: the column 'drawingNumbr' is not a property of engChangeNotice; use "drawingNumber" (did you mean it?)`,
  );
  const readOnly = csv('readonly.csv', ['drawingNumber,lastModifiedDateTime', 'RO-1,2020-01-01T00:00:00Z']);
  expect(await importRows(t.service.context, ecnType, readDataFile(readOnly, ecnType), { mode: 'skip', principal, companyId: cronus })).toEqual({ imported: 1, refused: [] });
  const row = (await t.call('GET', "/engChangeNotices?$filter=drawingNumber eq 'RO-1'")).json.value[0];
  expect(row.lastModifiedDateTime).not.toBe('2020-01-01T00:00:00Z');
});

test('JSON files: objects as in a POST body, refused rows named by the line the object starts on', async () => {
  const file = path.join(workDir, 'ecns.json');
  fs.writeFileSync(file, '[\n  {"drawingNumber": "J-1", "changeReasonCode": "COST"},\n  {\n    "drawingNumber": "J-2",\n    "sourceSequence": "x"\n  }\n]\n');
  const report = await importRows(t.service.context, ecnType, readDataFile(file, ecnType), { mode: 'skip', principal, companyId: cronus });
  expect(report.imported).toBe(1);
  expect(report.refused.map((r) => [r.line, r.element, r.target])).toEqual([[3, 2, 'sourceSequence']]);
  const broken = path.join(workDir, 'broken.json');
  fs.writeFileSync(broken, '[\n {"a": 1},\n {"b": }\n]');
  await expect(importRows(t.service.context, ecnType, readDataFile(broken, ecnType), { mode: 'skip', principal, companyId: cronus })).rejects.toThrow(/broken\.json:3: not valid JSON/);
});

test('a quoted cell spanning lines: the record is named by its last line; a short row is a CSV error', async () => {
  const file = csv('multiline.csv', [HEADER, 'New,COST,"two', 'lines",Item,,1', 'New,COST,X,Item,,bad']);
  const report = await importRows(t.service.context, ecnType, readDataFile(file, ecnType), { mode: 'skip', principal, companyId: cronus });
  expect(report.refused.map((r) => r.line)).toEqual([4]);
  const short = csv('short.csv', [HEADER, 'New,COST']);
  await expect(importRows(t.service.context, ecnType, readDataFile(short, ecnType), { mode: 'skip', principal, companyId: cronus })).rejects.toThrow(/short\.csv:2: not valid CSV/);
});

test('number series: one counter per batch, written back with it; a replayed batch leaves no gap', async () => {
  const series = (): number => Number((t.service.db.raw.prepare('SELECT "lastNumber" AS n FROM "numberSeries" WHERE "code" = \'ECN\' AND "_companyId" = ?').get(cronus) as { n: number }).n);
  const before = series();
  const file = csv('numbers.csv', [HEADER, ...Array.from({ length: 7 }, (_, i) => `New,COST,NUM-${i},Item,${i === 3 ? 'Planned' : ''},${i}`)]);
  const report = await importRows(t.service.context, ecnType, readDataFile(file, ecnType), { mode: 'skip', principal, companyId: cronus, batchSize: 4 });
  expect(report.imported).toBe(6);
  const numbers = (await t.call('GET', "/engChangeNotices?$filter=startswith(drawingNumber,'NUM-')&$select=number&$orderby=number")).json.value.map((e: { number: string }) => Number(e.number.slice(3)));
  expect(numbers).toEqual(Array.from({ length: 6 }, (_, i) => before + 1 + i));
  expect(series()).toBe(before + 6);
  // The API goes on from there.
  const posted = await t.call('POST', '/engChangeNotices', { body: { drawingNumber: 'API-1' } });
  expect(Number(posted.json.number.slice(3))).toBe(before + 7);
});
