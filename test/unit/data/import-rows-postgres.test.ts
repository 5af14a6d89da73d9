/**
 * src/data/import-rows.ts on PostgreSQL, inside a command's outer transaction (seed, import --atomic):
 * the import's write batches are savepoints of it (db/postgres/postgres-engine.ts keeps no async
 * context, so this is the engine's outer-transaction mode), a batch replayed row by row nests its
 * savepoints in them, and the first refused row of an atomic import undoes every batch before it.
 */
import { readDataFile } from '../../../src/data/data-file.js';
import { ImportRefusedError, importRows, inOuterTransaction } from '../../../src/data/import-rows.js';
import type { EntityType } from '../../../src/edm/model.js';
import { startTestService, type TestService } from '../../helpers/test-service.js';
import { dataFiles, HEADER, principal } from './import-files.js';

const { csv } = dataFiles('import-rows-pg-');

let t: TestService;
let ecnType: EntityType;
let cronus = '';
beforeAll(async () => {
  t = await startTestService({ engine: 'postgres' });
  ecnType = t.service.model.entityTypeBySet.get('engChangeNotices') as EntityType;
  cronus = t.companyIds[0] as string;
});
afterAll(() => t.close());

/** The drawing numbers of the company's ECNs that start with `prefix`, in order. */
async function drawings(prefix: string): Promise<string[]> {
  const rows = await t.query(`SELECT "drawingNumber" FROM "engChangeNotices" WHERE "_companyId" = $1 AND "drawingNumber" LIKE $2 ORDER BY "drawingNumber"`, [cronus, `${prefix}%`]);
  return rows.map((r) => String(r['drawingNumber']));
}

const inOuter = <T>(body: () => Promise<T>): Promise<T> => inOuterTransaction(t.service.context, body);

test('atomic: the first refused row rolls back everything, even the batches before it', async () => {
  const file = csv('atomic.csv', [HEADER, 'New,COST,PA-1,Item,,1', 'New,COST,PA-2,Item,,2', 'New,COST,PA-3,Item,,3', 'New,COST,PA-4,Item,Planned,4']);
  const run = inOuter(() => importRows(t.service.context, ecnType, readDataFile(file, ecnType), { mode: 'atomic', principal, companyId: cronus, batchSize: 2 }));
  await expect(run).rejects.toThrow(ImportRefusedError);
  await expect(run).rejects.toMatchObject({ row: { line: 5, code: 'Application_DialogException', target: 'sourceStatus' } });
  expect(await drawings('PA-')).toEqual([]);
  // The engine is out of the outer transaction: a request's write is a transaction of its own and commits.
  const posted = await t.call('POST', '/engChangeNotices', { body: { drawingNumber: 'PA-after' } });
  expect(posted.status).toBe(201);
  expect(await drawings('PA-')).toEqual(['PA-after']);
});

test('several files in one outer transaction commit together, with the number series written back once per batch', async () => {
  const [before] = await t.query(`SELECT "lastNumber" AS "n" FROM "numberSeries" WHERE "code" = 'ECN' AND "_companyId" = $1`, [cronus]);
  const first = csv('first.csv', [HEADER, 'New,COST,PB-1,Item,,1', 'New,COST,PB-2,Item,,2', 'New,COST,PB-3,Item,,3']);
  const second = csv('second.csv', [HEADER, 'New,COST,PB-4,Item,,4']);
  const reports = await inOuter(async () => [
    await importRows(t.service.context, ecnType, readDataFile(first, ecnType), { mode: 'atomic', principal, companyId: cronus, batchSize: 2 }),
    await importRows(t.service.context, ecnType, readDataFile(second, ecnType), { mode: 'atomic', principal, companyId: cronus, batchSize: 2 }),
  ]);
  expect(reports).toEqual([
    { imported: 3, refused: [] },
    { imported: 1, refused: [] },
  ]);
  expect(await drawings('PB-')).toEqual(['PB-1', 'PB-2', 'PB-3', 'PB-4']);
  const [after] = await t.query(`SELECT "lastNumber" AS "n" FROM "numberSeries" WHERE "code" = 'ECN' AND "_companyId" = $1`, [cronus]);
  expect(Number(after?.['n'])).toBe(Number(before?.['n']) + 4);
});

test('skip: a batch holding a refused row is replayed row by row in savepoints inside the outer transaction', async () => {
  const file = csv('skip.csv', [HEADER, 'New,COST,PC-1,Item,,1', 'New,COST,PC-2,Item,Planned,2', 'New,COST,PC-3,Item,,3', 'New,NOPE,PC-4,Item,,4', 'New,COST,PC-5,Item,,5']);
  const report = await inOuter(() => importRows(t.service.context, ecnType, readDataFile(file, ecnType), { mode: 'skip', principal, companyId: cronus, batchSize: 3 }));
  expect(report.imported).toBe(3);
  expect(report.refused.map((r) => [r.line, r.target])).toEqual([
    [3, 'sourceStatus'],
    [5, 'changeReasonCode'],
  ]);
  expect(await drawings('PC-')).toEqual(['PC-1', 'PC-3', 'PC-5']);
});
