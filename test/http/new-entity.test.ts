/**
 * A team adds an entity by editing metadata/ only: a new file with a navigation to engChangeNotices
 * gets a table, routes, $metadata and CRUD with no code change; an existing database keeps its rows.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_METADATA, startTestService } from '../helpers/test-service.js';

const attachment = {
  $schema: '../../schemas/entity.schema.json',
  name: 'engChangeNoticeAttachment',
  entitySet: 'engChangeNoticeAttachments',
  description: 'A file reference attached to an ECN.',
  scope: 'company',
  permissions: { read: 'ECN-READ', write: 'ECN-WRITE' },
  key: 'id',
  properties: [
    { name: 'id', type: 'Edm.Guid', nullable: false, writable: 'create', default: { kind: 'guid' } },
    { name: 'engChangeNoticeId', type: 'Edm.Guid', nullable: false, writable: 'create' },
    { name: 'fileName', type: 'Edm.String', maxLength: 120, nullable: false },
    { name: 'pages', type: 'Edm.Int32', default: { kind: 'value', value: 1 } },
    { name: 'lastModifiedDateTime', type: 'Edm.DateTimeOffset', nullable: false, writable: 'never', autoModified: true },
  ],
  navigationProperties: [
    { name: 'engChangeNotice', target: 'engChangeNotice', collection: false, joins: [{ source: 'engChangeNoticeId', target: 'id' }], onTargetDelete: 'cascade' },
  ],
};

function metadataWithAttachment(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-new-entity-'));
  fs.cpSync(REPO_METADATA, path.join(dir, 'metadata'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'metadata', 'entities', 'engChangeNoticeAttachment.json'), JSON.stringify(attachment, null, 2));
  return path.join(dir, 'metadata');
}

test('a new entity file gives a working entity set with no code change', async () => {
  const t = startTestService({ metadataDir: metadataWithAttachment() });
  try {
    const ecn = (await t.call('GET', '/engChangeNotices?$top=1')).json.value[0];
    const md = (await t.call('GET', '/$metadata'));
    expect(md.text).toContain('<EntityType Name="engChangeNoticeAttachment"');
    expect(md.text).toContain('<EntitySet Name="engChangeNoticeAttachments" EntityType="Microsoft.NAV.engChangeNoticeAttachment"');
    const created = (await t.call('POST', '/engChangeNoticeAttachments', { body: { engChangeNoticeId: ecn.id, fileName: 'drawing.pdf' } }));
    expect(created.status).toBe(201);
    expect(created.json.pages).toBe(1);
    const scoped = `/companies(${t.companyIds[0]})/engChangeNoticeAttachments(${created.json.id})`;
    expect((await t.call('GET', scoped)).json.fileName).toBe('drawing.pdf');
    expect((await t.call('GET', '/engChangeNoticeAttachments')).json.value).toHaveLength(1);
    const patched = (await t.call('PATCH', scoped, { body: { pages: 4 }, headers: { 'If-Match': created.json['@odata.etag'] } }));
    expect(patched.status).toBe(200);
    expect(patched.json.pages).toBe(4);
    const nav = (await t.call('GET', `${scoped}/engChangeNotice`));
    expect(nav.status).toBe(200);
    expect(nav.json.id).toBe(ecn.id);
    expect((await t.call('POST', '/engChangeNoticeAttachments', { body: { engChangeNoticeId: '2f0c0a6e-1b2c-4d5e-8f90-0123456789ab', fileName: 'x' } })).status).toBe(400);
    expect((await t.call('DELETE', scoped)).status).toBe(204);
    expect((await t.call('GET', scoped)).status).toBe(404);
  } finally {
    t.close();
  }
});

test('an existing database started with the new entity file loses no row', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-old-db-'));
  const dbFile = path.join(dir, 'old.sqlite');
  const old = startTestService({ dbFile });
  const sets = ['companies', 'engChangeNotices', 'engChangeNoticeComments', 'engChangeNoticeBOMLines', 'engChangeOrders', 'engChangeOrderTasks', 'engChangeOrderTaskPredecessors', 'userSetups', 'contacts', 'workCenterGroups', 'changeReasons', 'numberSeries'];
  const countAll = (t: ReturnType<typeof startTestService>): Record<string, number> =>
    Object.fromEntries(sets.map((s) => [s, (t.service.db.raw.prepare(`SELECT count(*) AS n FROM "${s}"`).get() as { n: number }).n]));
  const before = countAll(old);
  const ecnBefore = (await old.call('GET', '/engChangeNotices')).json.value;
  old.close();
  expect(before['engChangeNotices']).toBeGreaterThan(0);

  const upgraded = startTestService({ dbFile, metadataDir: metadataWithAttachment(), seed: false, defaultCompany: 'CRONUS' });
  try {
    expect(countAll(upgraded)).toEqual(before);
    expect((await upgraded.call('GET', '/engChangeNotices')).json.value).toEqual(ecnBefore);
    expect((await upgraded.call('GET', '/engChangeNoticeAttachments')).json.value).toEqual([]);
  } finally {
    upgraded.close();
  }
});
