/**
 * A team adds an entity by editing metadata/ only, exactly as the README's "Adding an entity" shows (the
 * file is read from README.md): a copy of metadata/ with that file gets a table, routes in both URL forms,
 * $metadata, $expand, permissions and CRUD with no code change; an existing database keeps its rows; the
 * README's data file is seeded into every company, and `ecn-odata types` gives the new entity its row type.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_METADATA, startTestService, type TestService } from '../helpers/test-service.js';
import { readmeBlock } from '../helpers/readme-example.js';
import { BIN } from '../helpers/serve-process.js';
import BetterSqlite3 from 'better-sqlite3';

/** The README's entity file, as text (its name is in the README's sentence before it). */
const ATTACHMENT = readmeBlock('Adding an entity', 'json', '"name": "engChangeNoticeAttachment"');

function metadataWithAttachment(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-new-entity-'));
  fs.cpSync(REPO_METADATA, path.join(dir, 'metadata'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'metadata', 'entities', 'engChangeNoticeAttachment.json'), ATTACHMENT);
  return path.join(dir, 'metadata');
}

describe('the README entity on a copy of metadata/', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ metadataDir: metadataWithAttachment() });
  });
  afterAll(() => t.close());

  test('is in $metadata (XML and JSON) and the service document', async () => {
    const md = await t.call('GET', '/$metadata');
    expect(md.text).toContain('<EntityType Name="engChangeNoticeAttachment"');
    expect(md.text).toContain('<EntitySet Name="engChangeNoticeAttachments" EntityType="Microsoft.NAV.engChangeNoticeAttachment"');
    const json = await t.call('GET', '/$metadata?$format=json');
    expect(json.json['Microsoft.NAV']['engChangeNoticeAttachment']['fileName']).toEqual({ $Type: 'Edm.String', $MaxLength: 120 });
    const doc = await t.call('GET', '/');
    expect(doc.json.value.map((s: { name: string }) => s.name)).toContain('engChangeNoticeAttachments');
  });

  test('CRUD in both URL forms, defaults, ETags, the navigation and $expand', async () => {
    const ecn = (await t.call('GET', '/engChangeNotices?$top=1')).json.value[0];
    const created = await t.call('POST', '/engChangeNoticeAttachments', { body: { engChangeNoticeId: ecn.id, fileName: 'drawing.pdf' } });
    expect(created.status).toBe(201);
    expect(created.json.pages).toBe(1);
    expect(created.json['@odata.etag']).toMatch(/^W\//);
    const scoped = `/companies(${t.companyIds[0]})/engChangeNoticeAttachments(${created.json.id})`;
    expect((await t.call('GET', scoped)).json.fileName).toBe('drawing.pdf');
    expect((await t.call('GET', `/engChangeNoticeAttachments(id=${created.json.id})`)).json.fileName).toBe('drawing.pdf');
    expect((await t.call('GET', '/engChangeNoticeAttachments')).json.value).toHaveLength(1);
    const patched = await t.call('PATCH', scoped, { body: { pages: 4 }, headers: { 'If-Match': created.json['@odata.etag'] } });
    expect(patched.status).toBe(200);
    expect(patched.json.pages).toBe(4);
    const stale = await t.call('PATCH', scoped, { body: { pages: 5 }, headers: { 'If-Match': created.json['@odata.etag'] } });
    expect(stale.status).toBe(412);
    const nav = await t.call('GET', `${scoped}/engChangeNotice`);
    expect(nav.status).toBe(200);
    expect(nav.json.id).toBe(ecn.id);
    const expanded = await t.call('GET', `/engChangeNoticeAttachments?$expand=engChangeNotice($select=number)&$filter=pages eq 4`);
    expect(expanded.json.value[0].engChangeNotice.number).toBe(ecn.number);
    expect((await t.call('DELETE', scoped)).status).toBe(204);
    expect((await t.call('GET', scoped)).status).toBe(404);
  });

  test('body validation and the reference to the ECN are checked on write', async () => {
    const missing = await t.call('POST', '/engChangeNoticeAttachments', { body: { engChangeNoticeId: '2f0c0a6e-1b2c-4d5e-8f90-0123456789ab', fileName: 'x' } });
    expect(missing.status).toBe(400);
    const ecn = (await t.call('GET', '/engChangeNotices?$top=1')).json.value[0];
    const tooLong = await t.call('POST', '/engChangeNoticeAttachments', { body: { engChangeNoticeId: ecn.id, fileName: 'x'.repeat(121) } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.json.error.target).toBe('fileName');
  });

  test('its permission sets: ECN-READ reads, ECN-WRITE writes', async () => {
    const ecn = (await t.call('GET', '/engChangeNotices?$top=1')).json.value[0];
    const reader = await t.token('KLEE');
    expect((await t.call('GET', '/engChangeNoticeAttachments', { token: reader })).status).toBe(200);
    expect((await t.call('POST', '/engChangeNoticeAttachments', { token: reader, body: { engChangeNoticeId: ecn.id, fileName: 'a.pdf' } })).status).toBe(403);
    expect((await t.call('POST', '/engChangeNoticeAttachments', { token: await t.token('JSMITH'), body: { engChangeNoticeId: ecn.id, fileName: 'a.pdf' } })).status).toBe(201);
  });
});

test('an existing database started with the new entity file loses no row', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-old-db-'));
  const dbFile = path.join(dir, 'old.sqlite');
  const old = await startTestService({ dbFile, metadataDir: REPO_METADATA });
  const tables = old.service.model.entityTypes.map((type) => type.table);
  const countAll = (t: TestService): Record<string, number> =>
    Object.fromEntries(tables.map((table) => [table, (t.service.db.raw.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n]));
  const before = countAll(old);
  const ecnBefore = (await old.call('GET', '/engChangeNotices')).json.value;
  await old.close();
  expect(before['engChangeNotices']).toBeGreaterThan(0);

  const upgraded = await startTestService({ dbFile, metadataDir: metadataWithAttachment(), seed: false, defaultCompany: 'CRONUS' });
  try {
    expect(countAll(upgraded)).toEqual(before);
    expect((await upgraded.call('GET', '/engChangeNotices')).json.value).toEqual(ecnBefore);
    expect((await upgraded.call('GET', '/engChangeNoticeAttachments')).json.value).toEqual([]);
  } finally {
    await upgraded.close();
  }
});

test("the README's data file is seeded into every company, and the new entity gets its row type", async () => {
  const metadata = metadataWithAttachment();
  // Only the README's file: the data files metadata/ may have grown are not this test's subject.
  fs.rmSync(path.join(metadata, 'data'), { recursive: true, force: true });
  fs.mkdirSync(path.join(metadata, 'data'));
  fs.writeFileSync(path.join(metadata, 'data', 'changeReasons.csv'), readmeBlock('Adding an entity', 'csv', 'code,description'));
  const db = path.join(path.dirname(metadata), 'seeded.sqlite');
  const seeded = spawnSync(process.execPath, [BIN, 'seed', '--db', db, '--metadata', metadata], { encoding: 'utf8' });
  expect(seeded.stderr).toBe('');
  expect(seeded.status).toBe(0);
  const conn = new BetterSqlite3(db, { readonly: true });
  try {
    const rows = conn.prepare('SELECT c."name" AS company, r."code", r."description" FROM "changeReasons" r JOIN "companies" c ON c."id" = r."_companyId" WHERE r."code" IN (\'REG\', \'CUST\') ORDER BY 1, 2').all();
    expect(rows).toEqual([
      { company: 'CRONUS', code: 'CUST', description: 'Customer request, urgent' },
      { company: 'CRONUS', code: 'REG', description: 'Regulatory change' },
      { company: 'FABRIKAM', code: 'CUST', description: 'Customer request, urgent' },
      { company: 'FABRIKAM', code: 'REG', description: 'Regulatory change' },
    ]);
  } finally {
    conn.close();
  }
  const types = spawnSync(process.execPath, [BIN, 'types', '--metadata', metadata], { encoding: 'utf8' });
  expect(types.status).toBe(0);
  expect(types.stdout).toMatch(/export interface EngChangeNoticeAttachmentRow extends Row \{\n(.*\n)*? {2}readonly fileName: string;\n {2}readonly pages: number \| null;/);
});
