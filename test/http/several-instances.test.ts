/**
 * Several service instances on one SQLite file (conventions §10; issue 17): what one instance writes,
 * the others must not contradict. Two in-process services on one file stand for two processes (each
 * has its own connection, version clock and caches); test/multi-instance/ runs real processes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { readRow } from '../../src/store/resolve-path.js';
import { writeUpdate } from '../../src/store/update-entity.js';
import { PreconditionFailedError } from '../../src/errors/odata-error.js';

let dir: string;
let a: TestService;
let b: TestService;
let company: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'instances-'));
  const dbFile = path.join(dir, 'db.sqlite');
  a = await startTestService({ dbFile });
  b = await startTestService({ dbFile });
  company = a.companyIds[0] as string;
});
afterAll(async () => {
  await a.close();
  await b.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
afterEach(() => jest.restoreAllMocks());

test('ETags come from the database: a write through another instance whose clock gives the same version still changes the ETag, and the old ETag is refused', async () => {
  const ecn = (await a.call('POST', `/companies(${company})/engChangeNotices`, { body: {} })).json;
  const url = `/companies(${company})/engChangeNotices(${ecn.id})`;
  // Both clocks stand at the same millisecond, past anything either gave out: they hand out the same versions.
  const now = Date.now() + 60_000;
  jest.spyOn(Date, 'now').mockReturnValue(now);
  const first = await a.call('PATCH', url, { body: { drawingNumber: 'DRW-A' }, headers: { 'If-Match': ecn['@odata.etag'] } });
  expect(first.status).toBe(200);
  const second = await b.call('PATCH', url, { body: { drawingNumber: 'DRW-B' }, headers: { 'If-Match': first.json['@odata.etag'] } });
  expect(second.status).toBe(200);
  expect(second.json['@odata.etag']).not.toBe(first.json['@odata.etag']);
  // The ETag from before b's write no longer matches, on either instance: no lost update.
  for (const t of [a, b]) {
    const stale = await t.call('PATCH', url, { body: { drawingNumber: 'DRW-LOST' }, headers: { 'If-Match': first.json['@odata.etag'] } });
    expect(stale.status).toBe(412);
    expect(stale.json.error.code).toBe('Request_EntityChanged');
  }
  expect((await a.call('GET', url)).json.drawingNumber).toBe('DRW-B');
  expect((await a.call('GET', url)).json['@odata.etag']).toBe(second.json['@odata.etag']);
});

test('an UPDATE is conditional on the version its row was loaded with: a row another instance changed since is not written (412)', async () => {
  const ecn = (await a.call('POST', `/companies(${company})/engChangeNotices`, { body: {} })).json;
  const svc = a.service.context;
  const type = svc.model.entityTypeByName.get('engChangeNotice');
  if (type === undefined) throw new Error('no engChangeNotice');
  const loaded = await readRow(svc, svc.engine.db, type, company, [{ property: 'id', value: ecn.id }]);
  if (loaded === undefined) throw new Error('not found');
  const url = `/companies(${company})/engChangeNotices(${ecn.id})`;
  expect((await b.call('PATCH', url, { body: { drawingNumber: 'DRW-B' }, headers: { 'If-Match': ecn['@odata.etag'] } })).status).toBe(200);
  const stale = svc.engine.transaction((tx) => writeUpdate(svc, tx, type, company, loaded, new Map([['drawingNumber', 'DRW-STALE']]), new Date()));
  await expect(stale).rejects.toBeInstanceOf(PreconditionFailedError);
  expect((await a.call('GET', url)).json.drawingNumber).toBe('DRW-B');
});
