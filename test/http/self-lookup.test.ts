/**
 * A computed property that reads its own table (a lookup through a navigation to the same entity
 * type, added by metadata only): a write answers with the row as a read after it gives it, on every
 * engine. On PostgreSQL a subquery in RETURNING sees the table as it was before the statement, so
 * such a type is read back after its write (query/plan-returning.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { FIXTURE_METADATA } from '../fixtures/model.js';

let t: TestService;
let dir: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-self-lookup-'));
  const metadata = path.join(dir, 'metadata');
  fs.cpSync(FIXTURE_METADATA, metadata, { recursive: true });
  const file = path.join(metadata, 'entities', 'engChangeNotice.json');
  const ecn = JSON.parse(fs.readFileSync(file, 'utf8'));
  ecn.properties.push(
    { name: 'supersedesId', type: 'Edm.Guid' },
    { name: 'supersedesDrawingNumber', type: 'Edm.String', maxLength: 30, computed: { kind: 'lookup', path: ['supersedes', 'drawingNumber'] } },
  );
  ecn.navigationProperties.push({ name: 'supersedes', target: 'engChangeNotice', collection: false, joins: [{ source: 'supersedesId', target: 'id' }], checkOnWrite: true });
  fs.writeFileSync(file, JSON.stringify(ecn));
  t = await startTestService({ metadataDir: metadata });
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a PATCH that points an ECN at itself and changes the looked-up field answers with the new value, as a GET does', async () => {
  const base = `/companies(${t.companyIds[0]})/engChangeNotices`;
  const a = (await t.call('POST', base, { body: { drawingNumber: 'D-OLD' } })).json;
  const patched = await t.call('PATCH', `${base}(${a.id})`, { body: { supersedesId: a.id, drawingNumber: 'D-NEW' }, headers: { 'If-Match': '*' } });
  expect(patched.status).toBe(200);
  expect(patched.json.supersedesDrawingNumber).toBe('D-NEW');
  const read = await t.call('GET', `${base}(${a.id})`);
  expect(read.json.supersedesDrawingNumber).toBe('D-NEW');
  expect(patched.json).toEqual(read.json);
});

test('a POST that points a new ECN at another answers with the other\'s value', async () => {
  const base = `/companies(${t.companyIds[0]})/engChangeNotices`;
  const a = (await t.call('POST', base, { body: { drawingNumber: 'D-A' } })).json;
  const b = await t.call('POST', base, { body: { supersedesId: a.id } });
  expect(b.status).toBe(201);
  expect(b.json.supersedesDrawingNumber).toBe('D-A');
  expect(b.json).toEqual((await t.call('GET', `${base}(${b.json.id})`)).json);
});
